// The search plugin's sealing secret: from the variable when set, else made once in the data directory (0600)
// and read back on every later start, so that replays survive restarts.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { loadSearchSecret, SECRET_FILE } from '../../../../plugins/search/secret.js';

t.test(
  'without the variable: 32 random bytes kept in the data directory, mode 0600, the same after a restart',
  async (t) => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'search-secret-')), 'data');
    const first = await loadSearchSecret({}, 'GATEWAY_SEARCH_SECRET', dataDir);
    t.equal(first.length, 32);
    t.equal(statSync(join(dataDir, SECRET_FILE)).mode & 0o777, 0o600);
    t.same(await loadSearchSecret({}, 'GATEWAY_SEARCH_SECRET', dataDir), first);
    const [a, b] = await Promise.all([
      loadSearchSecret({}, 'S', join(dataDir, 'x')),
      loadSearchSecret({}, 'S', join(dataDir, 'x')),
    ]);
    t.same(a, b, 'two starts at once agree on one secret');
    t.match(readFileSync(join(dataDir, SECRET_FILE), 'utf8'), /^[0-9a-f]{64}\n$/);
  },
);

t.test('the variable wins; a short one or a damaged file stops the start', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'search-secret-'));
  t.same(
    await loadSearchSecret({ MY_SECRET: 'a long enough secret value' }, 'MY_SECRET', dataDir),
    Buffer.from('a long enough secret value'),
  );
  await t.rejects(loadSearchSecret({ MY_SECRET: 'short' }, 'MY_SECRET', dataDir), /at least 16/);
  writeFileSync(join(dataDir, SECRET_FILE), 'nope');
  await t.rejects(loadSearchSecret({}, 'MY_SECRET', dataDir), /32 bytes in hex/);
});
