// The connection-level limits: what Node's HTTP parser refuses (slow or oversized headers, malformed
// requests) is answered in JSON, and a node over its connection cap says so (503) instead of queueing.
import t from 'tap';
import { RawConnection } from '../helpers/raw-http.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({ yaml: 'server:\n  headers_timeout_ms: 300\n  max_connections: 3\n' });
});
t.teardown(() => stack.close());

/** How long a test may wait for the gateway to close a connection: a bound on the test, not the assertion. */
const BOUND_MS = 10_000;

t.test(
  'regression: headers that stop arriving get a 408 with a JSON body, then the connection closes',
  { timeout: BOUND_MS },
  async (t) => {
    const connection = await RawConnection.open(stack.gateway.url);
    connection.write('POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n');
    const answer = await connection.response();
    t.equal(answer.status, 408);
    t.equal(answer.headers['content-type'], 'application/json');
    t.match(JSON.parse(answer.body), {
      error: { type: 'invalid_request_error', code: 'request_timeout', message: /300 ms/ },
    });
    await connection.closed;
  },
);

t.test('a connection that sends nothing is closed after the headers timeout', { timeout: BOUND_MS }, async (t) => {
  const connection = await RawConnection.open(stack.gateway.url);
  await connection.closed;
  t.pass('closed');
});

t.test(
  'regression: headers over the size limit get a 431 with a JSON body and an x-request-id, in the message shape under /v1/messages',
  { timeout: BOUND_MS },
  async (t) => {
    for (const [path, shape] of [
      ['/v1/messages', 'messages'],
      ['/v1/chat/completions', 'chat'],
    ] as const) {
      const connection = await RawConnection.open(stack.gateway.url);
      connection.write(`POST ${path} HTTP/1.1\r\nhost: x\r\nx-padding: ${'a'.repeat(20_000)}\r\n\r\n`);
      const answer = await connection.response();
      t.equal(answer.status, 431, path);
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      if (shape === 'messages')
        t.match(body, { type: 'error', error: { type: 'invalid_request_error', message: /headers exceed/ } });
      else t.match(body, { error: { type: 'invalid_request_error', code: 'request_header_fields_too_large' } });
      await connection.closed;
      const logged = stack.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'request' && line.status === 431 && line.path === path);
      t.equal(logged.length, 1, `${path}: one request line`);
      t.equal(
        answer.headers['x-request-id'],
        logged[0]?.requestId,
        `${path}: the answer carries the logged request id`,
      );
    }
  },
);

t.test(
  "regression: a malformed request gets a 400 with a JSON body, in its route's dialect when the path is known",
  { timeout: BOUND_MS },
  async (t) => {
    for (const [text, shape] of [
      ['NONSENSE\r\n\r\n', 'chat'],
      ['POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n', 'chat'],
      ['POST /v1/messages HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n', 'messages'],
    ] as const) {
      const connection = await RawConnection.open(stack.gateway.url);
      connection.write(text);
      const answer = await connection.response();
      t.equal(answer.status, 400, JSON.stringify(text));
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      if (shape === 'messages')
        t.match(body, { type: 'error', error: { type: 'invalid_request_error', message: /not valid HTTP/ } });
      else t.match(body, { error: { type: 'invalid_request_error', message: /not valid HTTP/ } });
      await connection.closed;
    }
  },
);

/** A keep-alive connection the gateway has accepted and served once (retried while the gateway still counts closed ones). */
async function servedConnection(): Promise<RawConnection> {
  for (let attempt = 0; ; attempt++) {
    const connection = await RawConnection.open(stack.gateway.url);
    connection.write('GET /health HTTP/1.1\r\nhost: x\r\n\r\n');
    const answer = await connection.response();
    if (answer.status === 200 || attempt === 100) return connection;
    connection.close();
  }
}

t.test(
  "over server.max_connections, a new connection's request gets a 503 in its dialect with retry-after, then the connection closes",
  { timeout: BOUND_MS },
  async (t) => {
    const held = [await servedConnection(), await servedConnection(), await servedConnection()];
    t.teardown(() => held.forEach((connection) => connection.close()));
    const over = await RawConnection.open(stack.gateway.url);
    over.write(
      'POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}',
    );
    const answer = await over.response();
    t.equal(answer.status, 503);
    t.equal(answer.headers['retry-after'], '1');
    t.match(JSON.parse(answer.body), {
      type: 'error',
      error: { type: 'overloaded_error', message: /too many open connections/ },
    });
    await over.closed;

    held.pop()!.close();
    // The slot frees when the gateway sees the close; until then a new connection may still be over.
    let status = 0;
    for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
      status = (await fetch(`${stack.gateway.url}/health`, { headers: { connection: 'close' } })).status;
    }
    t.equal(status, 200, 'a connection is served again once one closes');
  },
);
