// The input limits of the request path: nesting depth, content types and encodings, the body limit and
// its 413 as Node clients see it, the body timeout, and what happens to a body the gateway did not read.
import { request as httpRequest } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import t, { type Test } from 'tap';
import { RawConnection } from '../helpers/raw-http.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let key: string;
t.before(async () => {
  stack = await startStack({
    yaml: 'server:\n  body_limit_bytes: 2048\n  body_timeout_ms: 500\nplugins:\n  - name: auth\n',
  });
  const store = await stack.store();
  await store.orgs.create('acme');
  key = (await store.keys.create('acme', 'tests')).key;
});
t.teardown(() => stack.close());

const MODEL = 'qwen3-8b';
const CHAT = '/v1/chat/completions';
const MESSAGES = '/v1/messages';
const COUNT = '/v1/messages/count_tokens';
const RESPONSES = '/v1/responses';
const hello = { model: MODEL, messages: [{ role: 'user', content: 'echo: hi' }] };
const helloFor = (path: string): Record<string, unknown> =>
  path === RESPONSES ? { model: MODEL, input: 'echo: hi' } : path === MESSAGES ? { ...hello, max_tokens: 10 } : hello;

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function post(path: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(stack.gateway.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, ...headers },
    body,
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** The error of an answer, checked against its route's dialect: the message shape under /v1/messages, else chat's. */
function errorOf(
  t: Test,
  path: string,
  answer: Answer,
): { message: string; type: string; code?: unknown; param?: unknown } {
  if (path.startsWith(MESSAGES)) {
    t.equal(answer.body.type, 'error', `${path}: the message shape`);
    return (answer.body.error ?? {}) as { message: string; type: string };
  }
  const error = (answer.body.error ?? {}) as { message: string; type: string; code: unknown; param: unknown };
  t.same(Object.keys(error).sort(), ['code', 'message', 'param', 'type'], `${path}: the chat shape`);
  return error;
}

const deepArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;
const deepObject = (depth: number): string => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

/** For each POST route, bodies that put a deep value where the dialect accepts any JSON, and in message content. */
function deepBodies(deep: string): Array<[string, string]> {
  return [
    [
      CHAT,
      `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","x":${deep}}}}]}`,
    ],
    [CHAT, `{"model":"${MODEL}","messages":[{"role":"user","content":${deep}}]}`],
    [
      MESSAGES,
      `{"model":"${MODEL}","max_tokens":10,"metadata":{"x":${deep}},"messages":[{"role":"user","content":"hi"}]}`,
    ],
    [
      MESSAGES,
      `{"model":"${MODEL}","max_tokens":10,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":${deep}}]}]}`,
    ],
    [
      COUNT,
      `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":{"type":"object","x":${deep}}}]}`,
    ],
    [RESPONSES, `{"model":"${MODEL}","input":"hi","metadata":{"x":${deep}}}`],
    [RESPONSES, `{"model":"${MODEL}","input":[{"role":"user","content":${deep}}]}`],
  ];
}

t.test(
  'regression: JSON nested 10,000 deep is a 400 naming the depth limit on every POST route, not a 500',
  async (t) => {
    // The body limit of this stack is small; these bodies are ~50-60 KB.
    const big = await startStack({ yaml: 'server:\n  body_limit_bytes: 1048576\n' });
    t.teardown(() => big.close());
    for (const [name, deep] of [
      ['arrays', deepArray(10_000)],
      ['objects', deepObject(10_000)],
    ] as const) {
      for (const [path, body] of deepBodies(deep)) {
        const response = await fetch(big.gateway.url + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        });
        const answer = {
          status: response.status,
          headers: response.headers,
          body: (await response.json()) as Record<string, unknown>,
        };
        t.equal(answer.status, 400, `${path}, deep ${name}`);
        const error = errorOf(t, path, answer);
        t.equal(error.type, 'invalid_request_error', `${path}, deep ${name}`);
        t.match(error.message, /deeper than the limit of 64 levels/, `${path}, deep ${name}`);
      }
    }
    t.equal((await fetch(`${big.gateway.url}/health`)).status, 200, 'the gateway still answers');
  },
);

t.test('nesting up to the limit is read; one level more is refused before parsing', async (t) => {
  const within = await post(
    CHAT,
    JSON.stringify({
      ...hello,
      tools: [
        {
          type: 'function',
          function: { name: 'f', parameters: JSON.parse(`{"type":"object","x":${deepArray(64 - 5)}}`) as object },
        },
      ],
    }),
  );
  t.equal(within.status, 200, '64 levels deep');
  const over = await post(
    CHAT,
    `{"model":"${MODEL}","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","x":${deepArray(64 - 4)}}}}]}`,
  );
  t.equal(over.status, 400, '65 levels deep');
  t.equal(errorOf(t, CHAT, over).code, null);
});

t.test("regression: a text/plain body is a 415 in the route's dialect, not read as JSON", async (t) => {
  for (const path of [CHAT, MESSAGES, COUNT, RESPONSES]) {
    for (const type of [
      'text/plain',
      'text/plain;charset=UTF-8',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    ]) {
      const answer = await post(path, JSON.stringify(helloFor(path)), { 'content-type': type });
      t.equal(answer.status, 415, `${path}, ${type}`);
      const error = errorOf(t, path, answer);
      t.equal(error.type, 'invalid_request_error', `${path}, ${type}`);
      t.match(error.message, /content-type/);
      if (!path.startsWith(MESSAGES)) t.same([error.code, error.param], ['unsupported_media_type', 'content-type']);
    }
  }
});

t.test(
  'JSON media types with parameters or a +json suffix are read, and so is a body without content-type',
  async (t) => {
    for (const type of [
      'application/json',
      'application/json; charset=utf-8',
      'Application/JSON;charset=UTF-8',
      'application/vnd.api+json',
    ]) {
      t.equal((await post(CHAT, JSON.stringify(hello), { 'content-type': type })).status, 200, type);
    }
    const bare = await new Promise<number>((resolve, reject) => {
      const body = JSON.stringify(hello);
      const req = httpRequest(
        stack.gateway.url + CHAT,
        { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
    t.equal(bare, 200, 'no content-type');
  },
);

t.test('regression: a gzip body is decoded, not answered with a 400 that echoes binary', async (t) => {
  const body = JSON.stringify(hello);
  for (const [coding, bytes] of [
    ['gzip', gzipSync(body)],
    ['x-gzip', gzipSync(body)],
    ['deflate', deflateSync(body)],
    ['br', brotliCompressSync(body)],
    ['identity', Buffer.from(body)],
  ] as const) {
    const answer = await post(CHAT, bytes, { 'content-encoding': coding });
    t.equal(answer.status, 200, coding);
  }
});

t.test('a compressed body larger than the limit once decoded is a 413 (a gzip bomb costs no memory)', async (t) => {
  const bomb = gzipSync(Buffer.alloc(1024 * 1024, 0x20));
  t.ok(bomb.length < 2048, 'the bomb itself is under the limit');
  for (const path of [CHAT, MESSAGES]) {
    const answer = await post(path, bomb, { 'content-encoding': 'gzip' });
    t.equal(answer.status, 413, path);
    t.match(errorOf(t, path, answer).message, /once decoded/);
  }
});

t.test('an unknown content-encoding is a 415 that names content-encoding; a corrupt one a 400', async (t) => {
  for (const path of [CHAT, MESSAGES]) {
    const unknown = await post(path, JSON.stringify(helloFor(path)), { 'content-encoding': 'zstd' });
    t.equal(unknown.status, 415, path);
    t.match(errorOf(t, path, unknown).message, /content-encoding 'zstd'/);
    const corrupt = await post(path, Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    t.equal(corrupt.status, 400, path);
    t.match(errorOf(t, path, corrupt).message, /not valid gzip/);
  }
  t.equal(
    errorOf(t, CHAT, await post(CHAT, '{}', { 'content-encoding': 'compress' })).code,
    'unsupported_content_encoding',
  );
});

t.test('regression: the message of a body that is not JSON never carries raw binary', async (t) => {
  for (const body of [
    gzipSync(JSON.stringify(hello)),
    Buffer.from([0x00, 0x01, 0x7f, 0xc3, 0x28, 0x0a, 0x1b]),
    Buffer.from('\u0007{"model": bell}'),
  ]) {
    for (const path of [CHAT, MESSAGES]) {
      const answer = await post(path, body);
      t.equal(answer.status, 400, path);
      const message = errorOf(t, path, answer).message;
      t.match(message, /not valid (JSON|UTF-8)/);
      t.match(message, /^[\x20-\x7e]*$/, `${path}: printable ASCII only: ${JSON.stringify(message)}`);
    }
  }
});

t.test(
  'regression: JSON with invalid UTF-8 inside a string was served, its bytes turned into U+FFFD for the model',
  async (t) => {
    for (const path of [CHAT, MESSAGES, COUNT, RESPONSES]) {
      // 'echo: hi' with the byte 0xFF, never valid in UTF-8, in place of the space.
      const [before, after] = JSON.stringify(helloFor(path)).split(' ');
      const answer = await post(path, Buffer.concat([Buffer.from(before!), Buffer.from([0xff]), Buffer.from(after!)]));
      t.equal(answer.status, 400, path);
      t.match(errorOf(t, path, answer).message, /not valid UTF-8/, path);
    }
  },
);

/**
 * A POST through Node's own http client with content-length, the body written in 16 KiB pieces, each
 * once the last is flushed (as a streamed upload is): the status and body of the answer, and whether
 * the whole body went out without an error.
 */
function nodeUpload(
  path: string,
  body: Buffer,
): Promise<{ status: number; body: Record<string, unknown>; sent: boolean; error: string | undefined }> {
  return new Promise((resolve) => {
    let answer: { status: number; body: Record<string, unknown> } | undefined;
    let sent = false;
    let error: string | undefined;
    const req = httpRequest(
      stack.gateway.url + path,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'content-length': body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          answer = {
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          };
        });
      },
    );
    req.on('error', (failure: NodeJS.ErrnoException) => {
      error = failure.code ?? failure.message;
    });
    req.on('close', () => resolve({ status: answer?.status ?? 0, body: answer?.body ?? {}, sent, error }));
    let at = 0;
    const next = (): void => {
      if (at >= body.length) {
        req.end(() => {
          sent = true;
        });
        return;
      }
      const piece = body.subarray(at, at + 16 * 1024);
      at += piece.length;
      req.write(piece, () => setImmediate(next));
    };
    next();
  });
}

t.test(
  "regression: a body over the limit sent with content-length through Node's http client gets its 413, and the client can finish sending",
  async (t) => {
    const oversize = Buffer.from(
      JSON.stringify({ ...hello, messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024) }] }),
    );
    for (let attempt = 0; attempt < 5; attempt++) {
      for (const path of [CHAT, MESSAGES]) {
        const answer = await nodeUpload(path, oversize);
        t.equal(answer.status, 413, `${path}, attempt ${attempt}`);
        if (path === CHAT) t.equal((answer.body.error as { code: string }).code, 'request_too_large');
        else t.equal((answer.body.error as { type: string }).type, 'request_too_large');
        t.same(
          [answer.sent, answer.error],
          [true, undefined],
          `${path}, attempt ${attempt}: the whole body went out, no EPIPE or reset`,
        );
      }
    }
  },
);

t.test('a body over the limit sent with fetch (undici) gets its 413', async (t) => {
  const oversize = JSON.stringify({ ...hello, messages: [{ role: 'user', content: 'x'.repeat(1024 * 1024) }] });
  for (let attempt = 0; attempt < 5; attempt++) {
    const answer = await post(RESPONSES, oversize);
    t.equal(answer.status, 413, `attempt ${attempt}`);
    t.equal((answer.body.error as { code: string }).code, 'request_too_large');
  }
});

t.test('a connection whose body was refused stays usable for the next request', async (t) => {
  const connection = await RawConnection.open(stack.gateway.url);
  t.teardown(() => connection.close());
  const oversize = 'x'.repeat(10_000);
  connection.write(
    `POST ${CHAT} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer ${key}\r\ncontent-length: ${oversize.length}\r\n\r\n${oversize}`,
  );
  t.equal((await connection.response()).status, 413);
  connection.write(`GET /health HTTP/1.1\r\nhost: x\r\n\r\n`);
  await connection.waitFor('{"status":"ok"}');
});

/** How long a test of a timeout may wait for the connection to close: a bound on the test, not the assertion. */
const BOUND_MS = 10_000;

/** Sends headers announcing a body of 1,000 bytes and only 10 of them, over a raw connection. */
async function slowBody(path: string, headers: string): Promise<RawConnection> {
  const connection = await RawConnection.open(stack.gateway.url);
  connection.write(
    `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n${headers}content-length: 1000\r\n\r\n{"model":`,
  );
  return connection;
}

t.test(
  "regression: a body that stops arriving is a 408 in the route's dialect, then the connection closes",
  { timeout: BOUND_MS },
  async (t) => {
    for (const path of [CHAT, MESSAGES]) {
      const connection = await slowBody(path, `authorization: Bearer ${key}\r\n`);
      const answer = await connection.response();
      t.equal(answer.status, 408, path);
      t.equal(answer.headers.connection, 'close');
      const body = JSON.parse(answer.body) as Record<string, unknown>;
      if (path === MESSAGES)
        t.match(body, { type: 'error', error: { type: 'invalid_request_error', message: /500 ms/ } });
      else t.match(body, { error: { type: 'invalid_request_error', code: 'request_timeout', message: /500 ms/ } });
      await connection.closed;
    }
  },
);

t.test(
  'regression: a 401 answered before the body is read does not hold the connection for a slow body',
  { timeout: BOUND_MS },
  async (t) => {
    const connection = await slowBody(MESSAGES, '');
    const answer = await connection.response();
    t.equal(answer.status, 401);
    t.match(JSON.parse(answer.body), { type: 'error', error: { type: 'authentication_error' } });
    await connection.closed;
    t.pass('closed once the body timeout passed');
  },
);

t.test(
  'regression: a 404 or 405 answered before the body is read does not hold the connection for a slow body',
  { timeout: BOUND_MS },
  async (t) => {
    for (const [path, method] of [
      ['/v1/nothing', 'POST'],
      [CHAT, 'PUT'],
    ] as const) {
      const connection = await RawConnection.open(stack.gateway.url);
      connection.write(`${method} ${path} HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n{"model":`);
      t.equal((await connection.response()).status, method === 'PUT' ? 405 : 404);
      await connection.closed;
    }
  },
);

t.test('a client still sending after an early answer can finish, and the connection is reused', async (t) => {
  const connection = await slowBody(CHAT, '');
  t.equal((await connection.response()).status, 401);
  connection.write(' '.repeat(1000 - '{"model":'.length));
  connection.write(`GET /health HTTP/1.1\r\nhost: x\r\n\r\n`);
  await connection.waitFor('{"status":"ok"}');
  t.equal(connection.socket.destroyed, false);
  connection.close();
});
