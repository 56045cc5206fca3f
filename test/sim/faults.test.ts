import t from 'tap';
import { MODEL, complete, post, simFor, sseData } from './sim-client.js';

const body = { model: MODEL, messages: [{ role: 'user', content: 'Hello there' }], stream: true };

/** Reads a body until it ends or breaks; returns the text received and the error, if any. */
async function readUntilBroken(res: Response): Promise<{ text: string; error: unknown }> {
  const reader = res.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const part = await reader?.read();
      if (!part || part.done) return { text, error: undefined };
      text += decoder.decode(part.value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}

function errorCode(err: unknown): string | undefined {
  const cause = err instanceof Error ? (err.cause as { code?: string } | undefined) : undefined;
  return cause?.code;
}

t.test('x-sim-fault 500 and 503 answer that status with a vLLM error body', async (t) => {
  const sim = await simFor(t);
  for (const status of [500, 503, 429]) {
    const res = await post(sim, '/v1/chat/completions', body, { 'x-sim-fault': String(status) });
    t.equal(res.status, status);
    const json = (await res.json()) as { error: { code: number; type: string; message: string } };
    t.equal(json.error.code, status);
    t.type(json.error.message, 'string');
  }
  const res = await post(sim, '/v1/chat/completions', body, { 'x-sim-fault': '503' });
  t.equal(((await res.json()) as { error: { type: string } }).error.type, 'ServiceUnavailableError');
});

t.test('x-sim-fault cut:N sends N chunks then drops the connection without [DONE]', async (t) => {
  const sim = await simFor(t);
  const res = await post(sim, '/v1/chat/completions', body, { 'x-sim-fault': 'cut:3' });
  t.equal(res.status, 200);
  const { text, error } = await readUntilBroken(res);
  t.ok(error, 'the body breaks off');
  const data = sseData(text);
  t.equal(data.length, 3);
  t.notOk(data.includes('[DONE]'));
  t.match(await sim.until((stats) => stats.inFlight === 0), { completed: 0, aborted: 1 }, 'counted as aborted');
});

t.test('x-sim-fault cut:N on a non-streaming request breaks the body after N bytes', async (t) => {
  const sim = await simFor(t);
  const res = await post(sim, '/v1/chat/completions', { ...body, stream: false }, { 'x-sim-fault': 'cut:10' });
  t.equal(res.status, 200);
  const { text, error } = await readUntilBroken(res);
  t.ok(error);
  t.equal(text.length, 10);
});

t.test('x-sim-fault stall:N sends N chunks then nothing until the client leaves', async (t) => {
  const sim = await simFor(t);
  const controller = new AbortController();
  const res = await post(sim, '/v1/chat/completions', body, { 'x-sim-fault': 'stall:2' }, controller.signal);
  const reader = res.body?.getReader();
  let text = '';
  while (sseData(text).length < 2) {
    const part = await reader?.read();
    if (!part || part.done) break;
    text += new TextDecoder().decode(part.value);
  }
  t.equal(sseData(text).length, 2);
  const { bytesSent, inFlight } = sim.stats();
  t.equal(inFlight, 1, 'the request is still open');
  controller.abort();
  const after = await sim.until((stats) => stats.inFlight === 0);
  t.match(after, { completed: 0, aborted: 1 }, 'the stalled request ends as aborted');
  t.equal(after.bytesSent, bytesSent, 'nothing more was sent before the client left');
});

t.test('x-sim-fault reset drops the connection before any response byte', async (t) => {
  const sim = await simFor(t);
  const err = await post(sim, '/v1/chat/completions', body, { 'x-sim-fault': 'reset' }).then(
    () => undefined,
    (e: unknown) => e,
  );
  t.ok(err instanceof TypeError, 'fetch fails');
  t.match(errorCode(err), /ECONNRESET|UND_ERR_SOCKET/);
});

t.test('the fault option applies to every request and a header overrides it', async (t) => {
  const sim = await simFor(t, { fault: { kind: 'status', status: 502 } });
  t.equal((await post(sim, '/v1/chat/completions', body)).status, 502);
  t.equal((await post(sim, '/v1/chat/completions', body, { 'x-sim-fault': 'none' })).status, 200);
  t.equal((await post(sim, '/tokenize', { prompt: 'x' })).status, 200, 'only chat completions fail');
});

t.test('a malformed x-sim header is a 400', async (t) => {
  const sim = await simFor(t);
  t.equal((await post(sim, '/v1/chat/completions', body, { 'x-sim-fault': 'explode' })).status, 400);
  t.equal((await post(sim, '/v1/chat/completions', body, { 'x-sim-ttft-ms': '-5' })).status, 400);
  t.equal((await complete(sim, { messages: body.messages })).object, 'chat.completion');
});
