// The drain of a `gateway start` process on SIGTERM (docs/deployment.md, "Node lifecycle"): streams in
// flight finish (every dialect, and a WebSocket's response, which then closes with 1001), each with its
// settled ledger row, and the process exits 0; new connections are refused; what is still running at
// `server.drain_timeout_ms`, or at a second signal, is cut as on an upstream break and settled with the
// tokens produced. The sim upstream runs in the test, each stream's pace set by the x-sim-* headers.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import type { DialectName } from '../../dialects/registry.js';
import { startSim, type RunningSim } from '../../sim/server.js';
import { openStore } from '../../store/store.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';
import { RawConnection } from '../helpers/raw-http.js';
import { DIALECTS, ledgerRow, PATHS, readAnswer, requestBody, type LedgerTokens } from '../helpers/metered-answers.js';

let sim: RunningSim;
const dataDir = mkdtempSync(join(tmpdir(), 'node-drain-'));
const configFile = join(dataDir, 'gateway.yaml');
let key: string;

t.before(async () => {
  sim = await startSim({ itlMs: 40, outputTokens: 16 });
  writeFileSync(
    configFile,
    'upstream:\n  forward_headers: [x-sim-itl-ms, x-sim-output-tokens]\nplugins:\n  - name: auth\n  - name: meter\n',
  );
  const store = await openStore({ dataDir });
  const org = await store.orgs.create('drain');
  await store.orgs.addCredits(org.id, 1_000_000_000);
  key = (await store.keys.create(org.id, 'drain')).key;
  await store.close();
});
t.teardown(() => sim.close());

/** A gateway process on the test's sim, its log lines watched, killed at the end of the test whatever happens. */
async function startNode(
  t: Test,
  env: Record<string, string> = {},
): Promise<GatewayProcess & { logged(msg: string): Promise<void>; exited: Promise<number | null> }> {
  const gateway = await startGatewayProcess({
    GATEWAY_CONFIG: configFile,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_UPSTREAM_URL: `${sim.url}/v1`,
    GATEWAY_LOG_LEVEL: 'info',
    ...env,
  });
  t.teardown(() => {
    if (gateway.child.exitCode === null && gateway.child.signalCode === null) gateway.child.kill('SIGKILL');
  });
  const exited = once(gateway.child, 'exit').then(([code]) => code as number | null);
  return { ...gateway, logged: watchLog(gateway.child), exited };
}

/** Resolves when the process logs a line with `msg` (seen from its start: none is missed). */
function watchLog(child: ChildProcess): (msg: string) => Promise<void> {
  const seen = new Set<string>();
  const waiting = new Map<string, Array<() => void>>();
  let partial = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      const msg = (JSON.parse(line) as { msg?: string }).msg;
      if (msg === undefined) continue;
      seen.add(msg);
      for (const wake of waiting.get(msg)?.splice(0) ?? []) wake();
    }
  });
  return (msg) =>
    seen.has(msg)
      ? Promise.resolve()
      : new Promise((resolve) => waiting.set(msg, [...(waiting.get(msg) ?? []), resolve]));
}

/** The first event that carries generated text, in each dialect's stream. */
const FIRST_DELTA: Record<DialectName, RegExp> = {
  chat: /"delta":\{"content":"[^"]/,
  messages: /event: content_block_delta/,
  responses: /event: response\.output_text\.delta/,
};

interface OpenStream {
  dialect: DialectName;
  id: string;
  /** The whole text the client received, once the stream ends. */
  text: Promise<string>;
}

/** Opens a stream of `tokens` tokens and resolves once its first text delta arrived. */
async function openStream(url: string, dialect: DialectName, tokens: number): Promise<OpenStream> {
  const response = await fetch(url + PATHS[dialect], {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${key}`,
      'x-sim-output-tokens': String(tokens),
      'x-sim-itl-ms': '40',
    },
    body: JSON.stringify(requestBody(dialect, true, 'Tell me about draining.', tokens)),
  });
  const id = response.headers.get('x-request-id')!;
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let started = (): void => {};
  const first = new Promise<void>((resolve) => (started = resolve));
  const whole = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (FIRST_DELTA[dialect].test(text)) started();
      }
    } catch {
      // The connection broke: what arrived is what the client has.
    }
    started();
    return text;
  })();
  await first;
  return { dialect, id, text: whole };
}

async function settledRow(id: string): Promise<{ state: string; status: number; tokens: LedgerTokens }> {
  const store = await openStore({ dataDir });
  try {
    const row = (await ledgerRow(store.db, id))!;
    return {
      state: row.state,
      status: row.status ?? 0,
      tokens: {
        input_tokens: row.input_tokens,
        output_tokens: row.output_tokens,
        cache_read_tokens: row.cache_read_tokens,
        cache_write_tokens: row.cache_write_tokens,
      },
    };
  } finally {
    await store.close();
  }
}

t.test('SIGTERM lets every stream in flight finish, in every dialect, each settled, and exits 0', async (t) => {
  const node = await startNode(t);
  const streams = await Promise.all(
    DIALECTS.flatMap((dialect) => [1, 2, 3].map(() => openStream(node.url, dialect, 24))),
  );
  node.child.kill('SIGTERM');
  await node.logged('draining');
  for (const stream of streams) {
    const answer = await readAnswer(stream.dialect, true, new Response(await stream.text));
    t.ok(answer.complete, `${stream.dialect} ${stream.id}: the stream reached its final event`);
    const row = await settledRow(stream.id);
    t.equal(row.state, 'settled', `${stream.dialect}: settled`);
    t.same(row.tokens, answer.tokens, `${stream.dialect}: with the usage the stream reported`);
  }
  t.equal(await node.exited, 0, 'exit 0');
  await node.logged('drained');
});

t.test('after SIGTERM a new connection is refused', async (t) => {
  const node = await startNode(t);
  const stream = await openStream(node.url, 'chat', 24);
  node.child.kill('SIGTERM');
  await node.logged('draining');
  const refused = await fetch(`${node.url}/health`).then(
    () => 'answered',
    (error: Error & { cause?: { code?: string } }) => error.cause?.code,
  );
  t.equal(refused, 'ECONNREFUSED');
  t.ok(
    (await readAnswer('chat', true, new Response(await stream.text))).complete,
    'the stream in flight still finished',
  );
  t.equal(await node.exited, 0);
});

t.test(
  'regression: a keep-alive connection idle at SIGTERM still carries the request sent on it, answered with connection: close',
  async (t) => {
    const node = await startNode(t);
    // A stream keeps the drain going while the idle connection is tried.
    const stream = await openStream(node.url, 'chat', 24);
    // A keep-alive connection that has served a request and waits for the next: idle.
    const idle = await RawConnection.open(node.url);
    const models = `GET /v1/models HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\n\r\n`;
    idle.write(models);
    t.equal((await idle.takeResponse()).status, 200);
    node.child.kill('SIGTERM');
    await node.logged('draining');
    // A proxy that took this connection from its pool just as the drain began sends its request now.
    idle.write(models);
    const answer = await idle.takeResponse();
    t.equal(answer.status, 200, 'served, not dropped');
    t.equal(answer.headers.connection, 'close', 'and the connection closes after it');
    await idle.closed;
    t.ok((await readAnswer('chat', true, new Response(await stream.text))).complete);
    t.equal(await node.exited, 0);
  },
);

/** The stream was cut by the gateway: no final event, the dialect's error event with the reason. */
async function checkCut(t: Test, stream: OpenStream): Promise<void> {
  const text = await stream.text;
  t.notOk((await readAnswer(stream.dialect, true, new Response(text))).complete, `${stream.dialect}: cut`);
  t.match(text, /event: error/, `${stream.dialect}: ends with its error event`);
  t.match(text, /shutting down/, `${stream.dialect}: saying why`);
  const row = await settledRow(stream.id);
  t.equal(row.state, 'settled', `${stream.dialect}: settled`);
  t.equal(row.status, 200, `${stream.dialect}: with the status the client got`);
  t.ok(
    row.tokens.output_tokens > 0 && row.tokens.output_tokens < 1000,
    `${stream.dialect}: with the tokens produced (${row.tokens.output_tokens} of 1000)`,
  );
}

t.test('a stream still running at drain_timeout_ms is cut as on an upstream break and settled', async (t) => {
  const node = await startNode(t, { GATEWAY_DRAIN_TIMEOUT_MS: '200' });
  // 1000 tokens 40 ms apart: 40 s, far past the drain timeout.
  const streams = await Promise.all(DIALECTS.map((dialect) => openStream(node.url, dialect, 1000)));
  node.child.kill('SIGTERM');
  await node.logged('aborted after the drain timeout');
  for (const stream of streams) await checkCut(t, stream);
  t.equal(await node.exited, 0, 'exit 0');
});

t.test('a second SIGTERM cuts what is left at once and still settles it', async (t) => {
  // The default drain timeout (30 s) is longer than the test's: only the second signal can end these streams in time.
  const node = await startNode(t);
  const streams = await Promise.all(DIALECTS.map((dialect) => openStream(node.url, dialect, 1000)));
  node.child.kill('SIGTERM');
  await node.logged('draining');
  node.child.kill('SIGTERM');
  await node.logged('aborted on a second signal');
  for (const stream of streams) await checkCut(t, stream);
  t.equal(await node.exited, 0, 'exit 0');
});

t.test('a WebSocket finishes the response in flight, then closes with 1001 (going away)', async (t) => {
  const node = await startNode(t);
  const ws = new WebSocket(`${node.url.replace('http', 'ws')}/v1/responses`, {
    headers: { authorization: `Bearer ${key}`, 'x-sim-itl-ms': '40', 'x-sim-output-tokens': '24' },
  });
  t.teardown(() => ws.terminate());
  const events: Array<{ type: string; response?: { id: string } }> = [];
  let firstDelta = (): void => {};
  const delta = new Promise<void>((resolve) => (firstDelta = resolve));
  ws.on('message', (data: Buffer) => {
    const event = JSON.parse(data.toString()) as { type: string };
    events.push(event);
    if (event.type === 'response.output_text.delta') firstDelta();
  });
  const closed = once(ws, 'close').then(([code]) => code as number);
  await once(ws, 'open');
  ws.send(JSON.stringify({ type: 'response.create', model: 'qwen3-8b', input: 'Tell me about draining.' }));
  await delta;
  node.child.kill('SIGTERM');
  t.equal(await closed, 1001, 'closed with 1001');
  t.equal(events.at(-1)?.type, 'response.completed', 'after the response in flight completed');
  t.equal(await node.exited, 0, 'exit 0');
});
