// API keys: created (the full key returned once), listed, revoked for good, found by hash, and their
// last-used times, which are kept in memory and written in one batch at most every `touchFlushMs`.
import type { Kysely } from 'kysely';
import { generateApiKey } from './api-key.js';
import { SYSTEM_ACTOR, writeAudit, type Actor } from './audit-log.js';
import { StoreError } from './errors.js';
import { newId } from './ids.js';
import type { Orgs } from './orgs.js';
import type { ApiKeyRow, Database } from './schema.js';

export interface ApiKeyRecord {
  id: string;
  orgId: string;
  name: string;
  last4: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  status: 'active' | 'revoked';
  /** Who made it: a member's e-mail, `operator`, `cli`, `system`; null for keys older than the audit log. */
  createdBy: string | null;
}

export interface CreatedApiKey {
  /** The full key: this is the only time it exists outside the client. */
  key: string;
  record: ApiKeyRecord;
}

export class Keys {
  /** Key id → the latest use not yet written (Unix ms). */
  private readonly pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly orgs: Orgs,
    private readonly touchFlushMs: number,
  ) {}

  async create(orgNameOrId: string, name: string, actor: Actor = SYSTEM_ACTOR): Promise<CreatedApiKey> {
    const trimmed = name.trim();
    if (trimmed === '' || trimmed.length > 100)
      throw new StoreError('GW_ERR_STORE_INVALID', 'a key name has 1 to 100 characters');
    const org = await this.orgs.get(orgNameOrId);
    const { key, hash, last4 } = generateApiKey();
    const row: ApiKeyRow = {
      id: newId('key'),
      org_id: org.id,
      name: trimmed,
      key_hash: hash,
      last4,
      created_at: Date.now(),
      last_used_at: null,
      revoked_at: null,
      created_by: actor.who,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('api_keys').values(row).execute();
      await writeAudit(trx, {
        orgId: org.id,
        action: 'key.created',
        actor,
        subject: row.id,
        detail: { name: trimmed },
      });
    });
    return { key, record: this.toRecord(row) };
  }

  /** The org's keys, oldest first, revoked ones included. */
  async list(orgNameOrId: string): Promise<ApiKeyRecord[]> {
    const org = await this.orgs.get(orgNameOrId);
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('org_id', '=', org.id)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map((row) => this.toRecord(row));
  }

  async get(id: string): Promise<ApiKeyRecord> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (row === undefined) throw new StoreError('GW_ERR_STORE_KEY_NOT_FOUND', `no key '${id}'`);
    return this.toRecord(row);
  }

  /** The key with this SHA-256 (hex), active or revoked, or undefined: the auth lookup. */
  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('key_hash', '=', hash).executeTakeFirst();
    return row && this.toRecord(row);
  }

  /** Revokes a key for good. Revoking a revoked key changes nothing (its first revocation time stays). */
  async revoke(id: string, actor: Actor = SYSTEM_ACTOR): Promise<ApiKeyRecord> {
    const key = await this.get(id);
    await this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('api_keys')
        .set({ revoked_at: Date.now() })
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      if (result.numUpdatedRows > 0n)
        await writeAudit(trx, {
          orgId: key.orgId,
          action: 'key.revoked',
          actor,
          subject: id,
          detail: { name: key.name },
        });
    });
    return this.get(id);
  }

  /** Notes a use of the key; written with others in one batch within `touchFlushMs`, not now. */
  touch(id: string, at: Date = new Date()): void {
    const ms = at.getTime();
    const seen = this.pending.get(id);
    if (seen === undefined || ms > seen) this.pending.set(id, ms);
    if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.flushTouches().catch(() => {});
      }, this.touchFlushMs);
      this.timer.unref();
    }
  }

  /** Last-used times noted but not yet written. */
  get pendingTouches(): number {
    return this.pending.size;
  }

  /** Writes the noted last-used times now, in one transaction; a time never moves backwards. */
  flushTouches(): Promise<void> {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // In the order of the key ids: two nodes' flushes lock shared keys' rows in one order, not deadlock.
    const batch = [...this.pending].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.pending.clear();
    const write = async (): Promise<void> => {
      if (batch.length === 0) return;
      await this.db.transaction().execute(async (trx) => {
        for (const [id, ms] of batch) {
          await trx
            .updateTable('api_keys')
            .set({ last_used_at: ms })
            .where('id', '=', id)
            .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', ms)]))
            .execute();
        }
      });
    };
    // A failed batch goes back to pending (the next flush retries it) and does not block later flushes.
    const done = this.flushing.then(write).catch((error: unknown) => {
      for (const [id, ms] of batch) if (ms > (this.pending.get(id) ?? 0)) this.pending.set(id, ms);
      throw error;
    });
    this.flushing = done.catch(() => {});
    return done;
  }

  private toRecord(row: ApiKeyRow): ApiKeyRecord {
    const noted = this.pending.get(row.id);
    const lastUsed = row.last_used_at === null ? noted : Math.max(Number(row.last_used_at), noted ?? 0);
    return {
      id: row.id,
      orgId: row.org_id,
      name: row.name,
      last4: row.last4,
      createdAt: new Date(Number(row.created_at)),
      lastUsedAt: lastUsed === undefined ? null : new Date(lastUsed),
      revokedAt: row.revoked_at === null ? null : new Date(Number(row.revoked_at)),
      status: row.revoked_at === null ? 'active' : 'revoked',
      createdBy: row.created_by,
    };
  }
}
