// The README's first command: `gateway start` on an empty store creates a demo organization and prints
// one key, once; the default chain checks keys.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { packageRoot } from '../../config/load.js';

const root = packageRoot();
const built = join(root, 'dist', 'bin', 'gateway.js');
const entry = existsSync(built) ? [built] : ['--import', 'tsx', join(root, 'bin', 'gateway.ts')];
const environment = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('GATEWAY_') && !name.startsWith('NODE_') && !name.startsWith('TAP')));
const dataDir = join(mkdtempSync(join(tmpdir(), 'gateway-first-')), 'data');

/** Starts `gateway start` and waits for the line that gives its address; returns what it printed so far. */
async function start(): Promise<{ child: ChildProcess; url: string; stderr: string }> {
  const child = spawn(process.execPath, [...entry, 'start'], { cwd: root, env: { ...environment, GATEWAY_DATA_DIR: dataDir, GATEWAY_PORT: '0', GATEWAY_LOG_LEVEL: 'warn' } });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no address printed: ${stderr}`)), 30_000);
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /Gateway on (http:\/\/[^ ]+) /.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, url, stderr };
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

const hello = JSON.stringify({ model: 'qwen3-8b', messages: [{ role: 'user', content: 'echo: hi' }] });

t.test('the first start creates a demo organization and prints its key once; the key works and none is needed for /health', async (t) => {
  const first = await start();
  const key = /^\s+(sk-svc-[A-Za-z0-9_-]{43})$/m.exec(first.stderr)?.[1];
  t.ok(key, 'a key was printed');
  t.match(first.stderr, /authorization: Bearer sk-svc-/, 'the curl line carries the key');
  const withKey = await fetch(`${first.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: hello });
  t.equal(withKey.status, 200);
  const without = await fetch(`${first.url}/v1/chat/completions`, { method: 'POST', body: hello });
  t.equal(without.status, 401, 'the default chain checks keys');
  t.equal((await fetch(`${first.url}/health`)).status, 200);
  await stop(first.child);

  const second = await start();
  t.notMatch(second.stderr, /First start/, 'no second demo key');
  t.equal((await fetch(`${second.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-api-key': key! }, body: hello })).status, 200, 'the key survives a restart');
  await stop(second.child);
});
