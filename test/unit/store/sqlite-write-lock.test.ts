// The workers of a node share one SQLite file: a transaction that finds another process's write lock waits
// for it on later turns of the event loop, never in SQLite's own busy wait, which would stall the process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import t from 'tap';
import { DATABASE_FILE, openSqliteDatabase } from '../../../store/sqlite-database.js';

t.test("a transaction waiting for another connection's write lock leaves the event loop free", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'write-lock-'));
  const opened = await openSqliteDatabase(dataDir);
  t.teardown(() => opened.db.destroy());
  // Another "process": a second connection to the file, holding the write lock.
  const other = new SQLite(join(dataDir, DATABASE_FILE));
  t.teardown(() => other.close());
  other.exec('create table if not exists counter (n integer)');
  other.exec('begin immediate');
  other.exec('insert into counter values (1)');

  const turns: string[] = [];
  const waiting = opened.transact(async (sql) => {
    turns.push('the transaction has the lock');
    const { rows } = await sql.run<{ n: number }>({ sql: 'select count(*) as n from counter', parameters: [] });
    return rows[0]!.n;
  });
  // Runs only if the waiting transaction does not block the process; the other connection then commits.
  await new Promise<void>((resolve) =>
    setTimeout(() => {
      turns.push('a timer ran while it waited');
      other.exec('commit');
      resolve();
    }, 20),
  );
  t.equal(await waiting, 1, "it then sees the other connection's committed row");
  t.same(turns, ['a timer ran while it waited', 'the transaction has the lock']);
});
