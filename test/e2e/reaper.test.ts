// A test file that ends without its teardown (tap's timeout: SIGALRM, then SIGKILL; or a SIGTERM) takes the
// servers it started with it (test/helpers/reaper.ts), so they cannot hold ports and CPU for the files after it.
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import t, { type Test } from 'tap';
import { packageRoot } from '../../config/package-root.js';

interface Servers {
  redis: string;
  postgres: string;
}

/** Starts the stand-in test file and resolves with its servers' URLs and a promise of its exit. */
async function startTestFile(t: Test): Promise<{
  servers: Servers;
  child: ReturnType<typeof spawn>;
  exited: Promise<unknown>;
}> {
  const root = packageRoot();
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'test/fixtures/reaped-servers.ts')], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Gone already when the test passed; ended here when it failed.
  t.teardown(() => void child.kill('SIGKILL'));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const servers = await new Promise<Servers>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(JSON.parse(out) as Servers);
    });
    void exited.then((end) => reject(new Error(`the stand-in ended (${String(end)}) before its servers started`)));
  });
  return { servers, child, exited };
}

/**
 * Connections held open to both servers (the PostgreSQL one through a client: a raw connection would wait on a backend
 * for its startup packet); `gone` resolves once both servers closed theirs, i.e. have gone. Closed in teardown.
 */
async function heldConnections(t: Test, servers: Servers): Promise<{ gone: Promise<unknown> }> {
  const { hostname, port } = new URL(servers.redis);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  t.teardown(() => void socket.destroy());
  await new Promise((resolve) => socket.once('connect', resolve));
  const client = new pg.Client({ connectionString: servers.postgres });
  client.on('error', () => undefined);
  t.teardown(() => client.end().catch(() => undefined));
  await client.connect();
  const gone = Promise.all([
    new Promise((resolve) => socket.once('close', resolve)),
    new Promise((resolve) => client.once('end', resolve)),
  ]);
  return { gone };
}

t.test("tap's timeout (SIGALRM, then SIGKILL) ends the servers the file started", async (t) => {
  const { servers, child, exited } = await startTestFile(t);
  const { gone } = await heldConnections(t, servers);
  child.kill('SIGALRM');
  await gone;
  child.kill('SIGKILL');
  t.equal(await exited, 'SIGKILL');
});

t.test('a SIGTERM ends the servers, then the file, by that signal', async (t) => {
  const { servers, child, exited } = await startTestFile(t);
  const { gone } = await heldConnections(t, servers);
  child.kill('SIGTERM');
  await gone;
  t.equal(await exited, 'SIGTERM');
});
