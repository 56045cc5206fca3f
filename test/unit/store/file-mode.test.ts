// The store's files are the gateway user's alone (store/store.ts openStore).
import { chmodSync, mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { DATABASE_FILE, openStore } from '../../../store/store.js';

const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

t.test(
  'regression: gateway.db was created 0644; now the data dir the gateway creates is 0700 and gateway.db, -wal and -shm are 0600',
  { skip: process.platform === 'win32' && 'POSIX modes' },
  async (t) => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'gateway-mode-')), 'data');
    const store = await openStore({ dataDir });
    t.teardown(() => store.close());
    await store.orgs.create('acme'); // a write: the WAL and its index exist
    t.equal(modeOf(dataDir), '700', 'the data directory');
    t.equal(modeOf(join(dataDir, DATABASE_FILE)), '600', DATABASE_FILE);
    t.equal(modeOf(join(dataDir, `${DATABASE_FILE}-wal`)), '600', `${DATABASE_FILE}-wal`);
    t.equal(modeOf(join(dataDir, `${DATABASE_FILE}-shm`)), '600', `${DATABASE_FILE}-shm`);
  },
);

t.test(
  'a store left readable by others is narrowed to 0600 when opened; a data dir that exists keeps its mode',
  { skip: process.platform === 'win32' && 'POSIX modes' },
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gateway-mode-'));
    chmodSync(dataDir, 0o755);
    const first = await openStore({ dataDir });
    await first.close();
    // As an older gateway left them: 0644, with the -wal and -shm of a process that was killed.
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`]) {
      writeFileSync(join(dataDir, file), '', { flag: 'a' });
      chmodSync(join(dataDir, file), 0o644);
    }
    const store = await openStore({ dataDir });
    t.teardown(() => store.close());
    for (const file of [DATABASE_FILE, `${DATABASE_FILE}-wal`, `${DATABASE_FILE}-shm`])
      t.equal(modeOf(join(dataDir, file)), '600', file);
    t.equal(modeOf(dataDir), '755', "the operator's own directory is left as it is");
  },
);
