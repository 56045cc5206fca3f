// llama-server killed in the middle of answers and started again: each dialect's stream ends with its
// error event (no end event), /ready says the upstream is gone (server.ready_checks_upstream), the next
// request is a 502 in the caller's dialect while it is down, a 200 once it is back, and the ledger balances.
import t from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { llamaServerBinary, startLlamaServer, type RunningLlamaServer } from '../../upstream-tier/llama-server.js';
import { freePort } from '../helpers/free-port.js';
import { PATHS, requestBody } from './dialect-answers.js';
import { ledgerCheck, startLlamaStack, tinyModelFile, type LlamaStack, TIER_TIMEOUT_MS } from './llama-stack.js';

t.setTimeout(TIER_TIMEOUT_MS);

const DIALECTS: readonly DialectName[] = ['chat', 'messages', 'responses'];

/** How each dialect's stream says it broke. */
const BROKEN: Record<DialectName, RegExp> = {
  chat: /"error":\{/,
  messages: /event: error\ndata: \{"type":"error","error":\{"type":"api_error"/,
  responses: /event: response\.failed/,
};
/** How each dialect's stream says it ended normally. */
const ENDED: Record<DialectName, RegExp> = {
  chat: /event: message_stop|\[DONE\]/,
  messages: /event: message_stop/,
  responses: /event: response\.completed/,
};

let port: number;
let server: RunningLlamaServer;
let llama: LlamaStack;

async function startServer(): Promise<RunningLlamaServer> {
  return startLlamaServer({ binary: await llamaServerBinary(), model: tinyModelFile(), port, ignoreEos: true });
}

t.before(async () => {
  port = await freePort();
  server = await startServer();
  llama = await startLlamaStack(t, { llama: server, yaml: 'server:\n  ready_checks_upstream: true' });
});
t.teardown(() => server.stop());

function post(dialect: DialectName, stream: boolean): Promise<Response> {
  return fetch(llama.url + PATHS[dialect], {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
    body: JSON.stringify(requestBody({ dialect, stream, thinking: false, maxTokens: 1000 })),
  });
}

t.test(
  'the server killed mid-stream: every dialect ends its stream with its error event, not its end event',
  async (t) => {
    const responses = await Promise.all(DIALECTS.map((dialect) => post(dialect, true)));
    const readers = responses.map((response) => response.body!.getReader());
    // Each stream has started (its first text is in) before the server dies.
    const received = await Promise.all(
      readers.map(async (reader) => {
        let text = '';
        while (!text.includes('Hello')) text += new TextDecoder().decode((await reader.read()).value);
        return text;
      }),
    );
    await server.kill();
    const rest = await Promise.all(
      readers.map(async (reader, index) => {
        let text = received[index]!;
        for (let part = await reader.read(); !part.done; part = await reader.read())
          text += new TextDecoder().decode(part.value);
        return text;
      }),
    );
    DIALECTS.forEach((dialect, index) => {
      t.equal(responses[index]!.status, 200, `${dialect}: the stream had begun`);
      t.match(rest[index], BROKEN[dialect], `${dialect}: its error event`);
      t.notMatch(rest[index], ENDED[dialect], `${dialect}: no end event`);
    });
  },
);

t.test('while the server is down, /ready is 503 and a request is a 502 in its dialect', async (t) => {
  const ready = await fetch(`${llama.url}/ready`);
  t.equal(ready.status, 503);
  t.match(await ready.json(), { checks: { upstream: 'unreachable' } });
  for (const dialect of DIALECTS) {
    const response = await post(dialect, false);
    t.equal(response.status, 502, dialect);
    const body = JSON.stringify(await response.json());
    t.match(body, dialect === 'messages' ? /"type":"error"/ : /"error":\{/, `${dialect}: its error shape`);
  }
});

t.test('started again on the same port, the server answers through the gateway at once', async (t) => {
  server = await startServer();
  const ready = await fetch(`${llama.url}/ready`);
  t.equal(ready.status, 200);
  for (const dialect of DIALECTS) {
    const response = await post(dialect, false);
    t.equal(response.status, 200, dialect);
    await response.text();
  }
});

t.test('the ledger balances after the crash', async (t) => {
  const checked = ledgerCheck(llama.stack);
  t.equal(checked.code, 0, checked.out + checked.err);
});
