// The README's first command: `gateway start` on an empty store creates a demo organization and prints
// one key, once; the default chain checks keys.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startGatewayProcess } from '../helpers/gateway-process.js';

const dataDir = join(mkdtempSync(join(tmpdir(), 'gateway-first-')), 'data');
const start = () => startGatewayProcess({ GATEWAY_DATA_DIR: dataDir, GATEWAY_LOG_LEVEL: 'warn' });

const hello = JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] });

t.test(
  'the first start creates a demo organization and prints its key once; the key works and none is needed for /health',
  async (t) => {
    const first = await start();
    const key = /^\s+(sk-svc-[A-Za-z0-9_-]{43})$/m.exec(first.stderr)?.[1];
    t.ok(key, 'a key was printed');
    t.match(first.stderr, /authorization: Bearer sk-svc-/, 'the curl line carries the key');
    const withKey = await fetch(`${first.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: hello,
    });
    t.equal(withKey.status, 200);
    const without = await fetch(`${first.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: hello,
    });
    t.equal(without.status, 401, 'the default chain checks keys');
    t.equal((await fetch(`${first.url}/health`)).status, 200);
    await first.stop();

    const second = await start();
    t.notMatch(second.stderr, /First start/, 'no second demo key');
    t.equal(
      (
        await fetch(`${second.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key! },
          body: hello,
        })
      ).status,
      200,
      'the key survives a restart',
    );
    await second.stop();
  },
);
