// WebSocket mode of /v1/responses (docs/endpoints.md): `response.create` messages on one connection,
// each run through the whole chain (auth, rate limits, metering) like a POST, its events back as
// messages; errors before a response's first event as one `error` message with the HTTP status, as
// OpenAI sends them and Codex reads them. A real `ws` client against the gateway and the sim.
import t from 'tap';
import WebSocket from 'ws';
import { ledgerRow } from '../helpers/metered-answers.js';
import { requestLine } from '../helpers/stack.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS, forwardHeaders, tiersOf } from '../kit/stack-presets.js';

const stack = await stackForFile(t, {
  // A credit per million tokens: a micro-credit per input token, two per output token. Tier `One`
  // (lifetime spend from 100 credits) allows one request a minute.
  yaml: [
    forwardHeaders('x-sim-itl-ms', 'x-sim-output-tokens'),
    'pricing: { input_per_mtok: 1, output_per_mtok: 2 }\n',
    tiersOf({ name: 'Start', fromSpend: 0, requests: 1000 }, { name: 'One', fromSpend: 100, requests: 1 }),
    CHAINS.authRatelimitMeter,
  ].join(''),
});
const store = await stack.store();
let orgs = 0;

/** A new organization with credits (and `spent` credits of lifetime spend: its tier), and its key. */
async function newOrg(spent = 0): Promise<{ id: string; key: string }> {
  const org = await store.orgs.create(`ws-org-${++orgs}`);
  await store.orgs.addCredits(org.id, 100_000_000);
  if (spent > 0)
    await store.db
      .updateTable('orgs')
      .set({ spent_micros: spent * 1_000_000 })
      .where('id', '=', org.id)
      .execute();
  return { id: org.id, key: (await store.keys.create(org.id, 'tests')).key };
}

const balance = async (orgId: string): Promise<number> => (await store.orgs.get(orgId)).balanceMicros;

type Message = Record<string, unknown> & { type: string };

/** A client connection: messages in arrival order, read one response at a time. */
class Client {
  readonly ws: WebSocket;
  readonly #messages: Message[] = [];
  #waiter: (() => void) | undefined;
  closed = false;

  constructor(ws: WebSocket) {
    this.ws = ws;
    ws.on('message', (data) => {
      this.#messages.push(JSON.parse(String(data)) as Message);
      this.#waiter?.();
    });
    ws.on('close', () => {
      this.closed = true;
      this.#waiter?.();
    });
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** The messages up to and including the next that ends a response (response.completed/incomplete/failed, error). */
  async response(): Promise<Message[]> {
    const out: Message[] = [];
    for (;;) {
      const message = this.#messages.shift();
      if (message === undefined) {
        if (this.closed) throw new Error(`connection closed after ${JSON.stringify(out.map((m) => m.type))}`);
        await new Promise<void>((resolve) => (this.#waiter = resolve));
        continue;
      }
      out.push(message);
      if (ENDS.has(message.type)) return out;
    }
  }

  /** The next message. */
  async next(): Promise<Message> {
    for (;;) {
      const message = this.#messages.shift();
      if (message !== undefined) return message;
      if (this.closed) throw new Error('connection closed');
      await new Promise<void>((resolve) => (this.#waiter = resolve));
    }
  }
}

const ENDS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

function connect(headers: Record<string, string>): Promise<Client> {
  const ws = new WebSocket(`${stack.gateway.url.replace('http', 'ws')}/v1/responses`, { headers });
  const client = new Client(ws);
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(client));
    ws.once('error', reject);
  });
}

/** The upgrade's answer when it is refused: status and JSON body. */
function refusedUpgrade(
  headers: Record<string, string>,
  path = '/v1/responses',
): Promise<{ status: number; body: unknown }> {
  const ws = new WebSocket(`${stack.gateway.url.replace('http', 'ws')}${path}`, { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    ws.once('error', () => {});
  });
}

const create = (input: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'response.create',
  model: 'qwen3-8b',
  input,
  ...extra,
});

const completed = (messages: Message[]) => {
  const last = messages.at(-1)!;
  if (last.type !== 'response.completed') throw new Error(`not completed: ${JSON.stringify(last)}`);
  return last.response as { id: string; output: unknown[]; usage: { input_tokens: number; output_tokens: number } };
};

/** The request id of a response (`resp_<request id>`), its settled ledger row. */
async function settledRow(responseId: string) {
  const id = responseId.replace(/^resp_/, '');
  await requestLine(stack, id);
  const row = await ledgerRow(store.db, id);
  if (row?.state !== 'settled') throw new Error(`no settled row for ${id}`);
  return row;
}

t.test(
  'auth: an upgrade without a valid key is refused with 401 before the switch, in the chat error shape',
  async (t) => {
    const missing = await refusedUpgrade({});
    t.equal(missing.status, 401);
    t.match(missing.body, { error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
    const wrong = await refusedUpgrade({ authorization: 'Bearer sk-not-a-key' });
    t.equal(wrong.status, 401);
    t.match(wrong.body, { error: { type: 'invalid_request_error', code: 'invalid_api_key' } });
  },
);

t.test('an upgrade on a path without WebSocket mode is refused (405), an unknown path 404', async (t) => {
  const { key } = await newOrg();
  t.equal((await refusedUpgrade({ authorization: `Bearer ${key}` }, '/v1/chat/completions')).status, 405);
  t.equal((await refusedUpgrade({ authorization: `Bearer ${key}` }, '/v1/nothing')).status, 404);
});

t.test(
  'one response: every event is one message, in sequence, from response.created to response.completed',
  async (t) => {
    const { key } = await newOrg();
    const client = await connect({ authorization: `Bearer ${key}`, 'x-gateway-wire': 'openai' });
    client.send(create('echo: hello over a socket'));
    const messages = await client.response();
    client.ws.close();
    t.equal(messages[0]!.type, 'response.created');
    const sequence = messages.map((message) => message.sequence_number as number);
    t.same(
      sequence,
      sequence.map((_, index) => index),
      'sequence numbers rise from 0 by one',
    );
    const response = completed(messages);
    const deltas = messages.filter((message) => message.type === 'response.output_text.delta');
    t.equal(
      deltas.map((delta) => delta.delta as string).join(''),
      'hello over a socket',
      'the profile from the upgrade header: string deltas',
    );
    t.equal(response.id, (messages[0]!.response as { id: string }).id, 'one response id throughout');
    t.match(response.output, [{ type: 'message', content: [{ type: 'output_text', text: 'hello over a socket' }] }]);
  },
);

t.test(
  'two responses on one connection are each a full exchange: each has its ledger row, the balance falls by both costs exactly',
  async (t) => {
    const org = await newOrg();
    const before = await balance(org.id);
    const client = await connect({ authorization: `Bearer ${org.key}` });
    client.send(create('echo: first'));
    const first = completed(await client.response());
    client.send(create('echo: second'));
    const second = completed(await client.response());
    client.ws.close();
    t.not(first.id, second.id);
    const rows = [await settledRow(first.id), await settledRow(second.id)];
    for (const [index, response] of [first, second].entries()) {
      const row = rows[index]!;
      t.same(
        { status: row.status, input: row.input_tokens, output: row.output_tokens, cost: Number(row.cost_micros) },
        {
          status: 200,
          input: response.usage.input_tokens,
          output: response.usage.output_tokens,
          cost: response.usage.input_tokens + 2 * response.usage.output_tokens,
        },
      );
    }
    t.equal(before - (await balance(org.id)), Number(rows[0]!.cost_micros) + Number(rows[1]!.cost_micros));
  },
);

t.test(
  'previous_response_id continues the last response of the connection: the upstream sees the whole conversation',
  async (t) => {
    const { key } = await newOrg();
    const client = await connect({ authorization: `Bearer ${key}` });
    client.send(create('echo: one'));
    const first = completed(await client.response());
    const next = [{ type: 'message', role: 'user', content: 'echo: two' }];
    client.send(create(next, { previous_response_id: first.id }));
    const second = completed(await client.response());
    client.ws.close();
    // The same conversation sent whole over HTTP counts the same input tokens.
    const whole = await fetch(`${stack.baseURL}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        model: 'qwen3-8b',
        input: [{ type: 'message', role: 'user', content: 'echo: one' }, ...first.output, ...next],
      }),
    });
    const body = (await whole.json()) as { usage: { input_tokens: number }; output_text: string };
    t.equal(second.usage.input_tokens, body.usage.input_tokens);
    t.match(second.output, [{ type: 'message', content: [{ text: 'two' }] }]);
  },
);

t.test(
  'an unknown previous_response_id is a 400 previous_response_not_found error message; the connection stays usable',
  async (t) => {
    const { key } = await newOrg();
    const client = await connect({ authorization: `Bearer ${key}` });
    client.send(create('echo: x', { previous_response_id: 'resp_elsewhere' }));
    t.match(await client.next(), {
      type: 'error',
      status: 400,
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });
    client.send(create('echo: still here'));
    t.equal(completed(await client.response()).output.length, 1);
    client.ws.close();
  },
);

t.test(
  'a rate limit hit on the second response is a 429 error message with retry-after; the connection stays open',
  async (t) => {
    const { key } = await newOrg(100);
    const client = await connect({ authorization: `Bearer ${key}` });
    client.send(create('echo: allowed'));
    completed(await client.response());
    client.send(create('echo: over the limit'));
    const refused = await client.next();
    t.match(refused, {
      type: 'error',
      status: 429,
      error: { type: 'insufficient_quota', message: /requests per minute \(limit 1, tier One\)/ },
    });
    t.match((refused.headers as Record<string, string>)['retry-after'], /^\d+$/, 'the headers the POST would have had');
    client.send(create('echo: again'));
    t.match(await client.next(), { type: 'error', status: 429 }, 'the connection still answers');
    t.equal(client.ws.readyState, WebSocket.OPEN);
    client.ws.close();
  },
);

t.test('bad messages get an error message naming the problem, and the connection survives', async (t) => {
  const { key } = await newOrg();
  const client = await connect({ authorization: `Bearer ${key}` });
  client.send('{not json');
  t.match(await client.next(), { type: 'error', status: 400, error: { message: /not valid JSON/ } });
  client.send({ type: 'response.cancel' });
  t.match(await client.next(), {
    type: 'error',
    status: 400,
    error: { param: 'type', message: /Unknown message type 'response.cancel'/ },
  });
  client.ws.send(Buffer.from('{}'), { binary: true });
  t.match(await client.next(), { type: 'error', status: 400, error: { message: /not binary/ } });
  client.send(create('echo: x', { stream: false }));
  t.match(await client.next(), { type: 'error', status: 400, error: { param: 'stream' } });
  client.send(create(42));
  t.match(await client.next(), { type: 'error', status: 400, error: { param: 'input' } });
  client.send(create('echo: fine after all that'));
  t.equal(completed(await client.response()).output.length, 1);
  client.ws.close();
});

t.test('a warm-up (generate: false) is answered without an upstream call or a ledger row', async (t) => {
  const { key } = await newOrg();
  const client = await connect({ authorization: `Bearer ${key}` });
  const upstreamCalls = stack.sim.stats().requests;
  client.send(create('echo: warm', { generate: false }));
  const response = completed(await client.response());
  client.ws.close();
  t.equal(stack.sim.stats().requests, upstreamCalls, 'no upstream call');
  t.equal(await ledgerRow(store.db, response.id.replace(/^resp_/, '')), undefined, 'nothing to bill');
});

t.test(
  'regression: a warm-up has no output item (Codex could not continue it), so the next request continues it with only its new input',
  async (t) => {
    const { key } = await newOrg();
    const client = await connect({ authorization: `Bearer ${key}` });
    const instructions = [{ type: 'message', role: 'developer', content: 'Be brief.' }];
    client.send(create(instructions, { generate: false }));
    const messages = await client.response();
    t.same(
      messages.map((message) => message.type),
      ['response.created', 'response.completed'],
      'no item events',
    );
    const warmUp = completed(messages);
    t.same(warmUp.output, [], 'no output, as OpenAI answers a warm-up');
    const turn = [{ type: 'message', role: 'user', content: 'echo: after the warm-up' }];
    client.send(create(turn, { previous_response_id: warmUp.id }));
    const answer = completed(await client.response());
    client.ws.close();
    t.match(answer.output, [{ type: 'message', content: [{ text: 'after the warm-up' }] }]);
    const last = stack.sim.requests().at(-1)?.body as { messages: Array<{ role: string }> };
    t.same(
      last.messages.map((message) => message.role),
      ['system', 'user'],
      "the upstream saw the warm-up's input, then the new input, and nothing between",
    );
  },
);

t.test(
  'a client that closes mid-response aborts the upstream call, and the response is settled with what was produced',
  async (t) => {
    const org = await newOrg();
    const before = await balance(org.id);
    const aborted = stack.sim.stats().aborted;
    // A long answer, slowly: the client leaves after its first delta.
    const client = await connect({
      authorization: `Bearer ${org.key}`,
      'x-sim-output-tokens': '2000',
      'x-sim-itl-ms': '20',
    });
    client.send(create('Tell me a long story.'));
    const created = await client.next();
    for (
      let message = await client.next();
      message.type !== 'response.output_text.delta';
      message = await client.next()
    );
    client.ws.terminate();
    await stack.sim.until((stats) => stats.aborted > aborted);
    const row = await settledRow((created.response as { id: string }).id);
    t.equal(row.status, 200, 'the response had started');
    t.ok(row.output_tokens > 0 && row.output_tokens < 2000, 'billed for what was produced');
    t.equal(before - (await balance(org.id)), Number(row.cost_micros));
  },
);

t.test('the gateway stays up after all of it', async (t) => {
  t.equal((await fetch(`${stack.gateway.url}/health`)).status, 200);
});
