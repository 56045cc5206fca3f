// The audit log: who changed what in an organization (keys created and revoked, members added, removed
// or given another role, credits added), when, and from which address. Entries are written by the store
// call that makes the change, in its transaction, so a change and its entry land together or not at all.
import type { Kysely, Transaction } from 'kysely';
import { newId } from './ids.js';
import type { AuditAction, Database } from './schema.js';

/** Who makes a change: a member's e-mail, `operator`, `cli` or `system`; and the client address, if any. */
export interface Actor {
  who: string;
  address: string | null;
}

/** Changes made by the gateway itself (the demo organization, tests): no person, no address. */
export const SYSTEM_ACTOR: Actor = { who: 'system', address: null };

export interface AuditEntry {
  id: string;
  orgId: string;
  action: AuditAction;
  actor: string;
  address: string | null;
  subject: string | null;
  detail: Record<string, unknown>;
  createdAt: Date;
}

export interface NewAuditEntry {
  orgId: string;
  action: AuditAction;
  actor: Actor;
  subject?: string;
  detail?: Record<string, unknown>;
}

/** The last entry's time written by this process. */
let lastWrittenAt = 0;

/**
 * The time of a new entry: now, or a millisecond after the last one when that is not behind now, so that
 * the entries of one change (an organization and its first members) read back in the order they were made.
 */
function entryTime(): number {
  lastWrittenAt = Math.max(Date.now(), lastWrittenAt + 1);
  return lastWrittenAt;
}

/** Writes one entry with the caller's transaction (or database). */
export async function writeAudit(db: Kysely<Database> | Transaction<Database>, entry: NewAuditEntry): Promise<void> {
  await db
    .insertInto('audit_log')
    .values({
      id: newId('audit'),
      org_id: entry.orgId,
      action: entry.action,
      actor: entry.actor.who,
      address: entry.actor.address,
      subject: entry.subject ?? null,
      detail: entry.detail === undefined ? null : JSON.stringify(entry.detail),
      created_at: entryTime(),
    })
    .execute();
}

export class AuditLog {
  constructor(private readonly db: Kysely<Database>) {}

  /** The organization's entries, newest first, at most `limit`. */
  async list(orgId: string, limit = 200): Promise<AuditEntry[]> {
    const rows = await this.db
      .selectFrom('audit_log')
      .selectAll()
      .where('org_id', '=', orgId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({
      id: row.id,
      orgId: row.org_id,
      action: row.action,
      actor: row.actor,
      address: row.address,
      subject: row.subject,
      detail: row.detail === null ? {} : (JSON.parse(row.detail) as Record<string, unknown>),
      createdAt: new Date(Number(row.created_at)),
    }));
  }
}
