// The store: one Kysely code path over either dialect, chosen by the options: the SQLite file in the
// data directory (sqlite-database.ts, the default) or a PostgreSQL server that several gateway nodes
// share (postgres-database.ts). Either way it is migrated to the latest schema when opened.
import type { Kysely, LogConfig } from 'kysely';
import { AuditLog } from './audit-log.js';
import { BatchFiles } from './batch-files.js';
import { BatchLines } from './batch-lines.js';
import { Batches } from './batches.js';
import { CapStore } from './caps.js';
import { StoreError } from './errors.js';
import { Keys } from './keys.js';
import { migrateToLatest } from './migrate.js';
import type { OpenedDatabase } from './opened-database.js';
import { Orgs } from './orgs.js';
import { Payments } from './payments.js';
import type { PostgresOptions } from './postgres-database.js';
import type { Database } from './schema.js';
import { openSqliteDatabase } from './sqlite-database.js';
import { OidcLogins } from './oidc-logins.js';
import { SignInLinks } from './sign-in-links.js';
import { SignInRequests } from './sign-in-requests.js';
import type { Transactor } from './transactor.js';
import { WebSessions } from './web-sessions.js';

export { DATABASE_FILE } from './sqlite-database.js';

export interface StoreOptions {
  /** The folder that holds gateway.db (created 0700 if missing), when `postgres` is not given. */
  dataDir: string;
  /** A PostgreSQL server instead of the SQLite file. */
  postgres?: PostgresOptions;
  /** How long last-used times wait in memory before one batched write (default 5000 ms). */
  touchFlushMs?: number;
  /** Kysely's query log, for debugging and tests. */
  log?: LogConfig;
}

export interface Store {
  readonly orgs: Orgs;
  readonly keys: Keys;
  /** Caps per key and per member, and their use. */
  readonly caps: CapStore;
  /** Who changed what in each organization. */
  readonly audit: AuditLog;
  /** Self-serve top-ups: Stripe Checkout Sessions and their grants. */
  readonly payments: Payments;
  /** The batch APIs' files, batches and the batches' lines (issue #29). */
  readonly batchFiles: BatchFiles;
  readonly batches: Batches;
  readonly batchLines: BatchLines;
  /** Signed-in browsers (the operator's dashboard, the members' console). */
  readonly sessions: WebSessions;
  /** One-time sign-in links sent by e-mail, and the requests for them the throttle counts. */
  readonly signInLinks: SignInLinks;
  readonly signInRequests: SignInRequests;
  /** OpenID Connect sign-ins between the redirect and the callback. */
  readonly oidcLogins: OidcLogins;
  /** The database file, or the PostgreSQL URL without its password: for logs and messages. */
  readonly path: string;
  /** PostgreSQL: other gateway nodes may share this store. */
  readonly shared: boolean;
  /** The migrations this open applied, oldest first (none when the schema was up to date). */
  readonly migrated: readonly string[];
  /** The typed query builder, for the parts of the gateway that own other tables (the usage ledger). */
  readonly db: Kysely<Database>;
  /** Transactions of precompiled statements for hot paths (the meter's holds and settlements). */
  readonly transact: Transactor;
  /** One trivial query: resolves when the database answers (a readiness check). */
  ping(): Promise<void>;
  /** Writes pending last-used times, then closes the database. */
  close(): Promise<void>;
}

/** Opens (and creates or migrates) the store. */
export async function openStore(options: StoreOptions): Promise<Store> {
  let opened: OpenedDatabase;
  if (options.postgres === undefined) opened = await openSqliteDatabase(options.dataDir, options.log);
  else {
    const { openPostgresDatabase } = await import('./postgres-database.js');
    opened = openPostgresDatabase(options.postgres, options.log);
  }
  const { db, transact, path } = opened;
  let migrated: string[];
  try {
    migrated = await opened.migrating(() => migrateToLatest(db, path));
  } catch (error) {
    await db.destroy();
    throw error;
  }
  const orgs = new Orgs(db);
  const keys = new Keys(db, orgs, options.touchFlushMs ?? 5000);
  return {
    orgs,
    keys,
    caps: new CapStore(db),
    audit: new AuditLog(db),
    payments: new Payments(db),
    batchFiles: new BatchFiles(db),
    batches: new Batches(db),
    batchLines: new BatchLines(db),
    sessions: new WebSessions(db),
    signInLinks: new SignInLinks(db),
    signInRequests: new SignInRequests(db),
    oidcLogins: new OidcLogins(db),
    path,
    shared: options.postgres !== undefined,
    migrated,
    db,
    transact,
    async ping() {
      try {
        await db.selectNoFrom((eb) => eb.lit(1).as('one')).execute();
      } catch (error) {
        throw new StoreError('GW_ERR_STORE_UNAVAILABLE', `store ${path}: ${messageOf(error)}`);
      }
    },
    async close() {
      await keys.flushTouches();
      await db.destroy();
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
