// Prompt-cache accounting (issue #6, spec §2.3 and §8.4) driven by the real @anthropic-ai/sdk: a prefix
// marked with cache_control is written on the first request (cache_creation_input_tokens = its exact
// count_tokens) and read by later ones within its TTL, per organization; upstream-reported cached
// tokens count as reads; streams report what bodies report.
import { randomUUID } from 'node:crypto';
import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { openStore, type Store } from '../../store/store.js';
import { TestClock } from '../helpers/clock.js';
import { startRedis, type RunningRedis } from '../helpers/redis.js';
import { present } from '../helpers/present.js';
import { rejection } from '../helpers/rejection.js';
import { startStack, type Stack } from '../helpers/stack.js';

const MODEL = 'qwen3-8b';
const CHAIN = 'plugins:\n  - name: auth\n  - name: promptcache\n';
type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, 'model' | 'max_tokens'>;
type System = Anthropic.TextBlockParam[];

let stack: Stack;
let store: Store;
let acme: Anthropic;
let globex: Anthropic;
t.before(async () => {
  stack = await startStack({ yaml: CHAIN });
  store = await stack.store();
  acme = await clientFor(stack, store, 'acme');
  globex = await clientFor(stack, store, 'globex');
});
t.teardown(async () => {
  await stack.close();
});

async function clientFor(on: Stack, db: Store, org: string): Promise<Anthropic> {
  if ((await db.orgs.find(org)) === undefined) await db.orgs.create(org);
  const { key } = await db.keys.create(org, 'tests');
  return new Anthropic({ apiKey: key, baseURL: on.gateway.url, maxRetries: 0 });
}

/** A long system prompt no other test (nor the sim's own prefix cache) has seen. */
function longSystem(ttl?: '5m' | '1h'): System {
  const text =
    `Session ${randomUUID()}. You are a careful assistant for a logistics company; answer briefly and cite the rule you apply. `.repeat(
      30,
    );
  return [
    { type: 'text', text, cache_control: ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl } },
  ];
}

const create = (client: Anthropic, params: Params): Promise<Anthropic.Message> =>
  client.messages.create({ model: MODEL, max_tokens: 8, ...params });
const count = async (client: Anthropic, params: Params): Promise<number> =>
  (await client.messages.countTokens({ model: MODEL, ...params } as Anthropic.MessageCountTokensParams)).input_tokens;
// Follow-up questions start with another token than the first one, so that the upstream's (sim's)
// own cache of the first prompt ends within the marked prefix and the reads are the registry's.
const user = (content: string): Anthropic.MessageParam[] => [{ role: 'user', content }];
const writes = (m5: number, h1: number) => ({ ephemeral_5m_input_tokens: m5, ephemeral_1h_input_tokens: h1 });

t.test(
  'the first request writes the marked prefix: cache_creation_input_tokens = its count_tokens, input_tokens the rest',
  async (t) => {
    const system = longSystem();
    const prefix = await count(acme, { system, messages: [] });
    const full = await count(acme, { system, messages: user('echo: first') });
    t.ok(prefix > 500, `a long prefix (${prefix} tokens)`);
    const { usage } = await create(acme, { system, messages: user('echo: first') });
    t.equal(usage.cache_creation_input_tokens, prefix);
    t.same(usage.cache_creation, writes(prefix, 0), 'a 5-minute write by default');
    t.equal(usage.cache_read_input_tokens, 0);
    t.equal(usage.input_tokens, full - prefix);
  },
);

t.test('a second request within the TTL reads the prefix and writes nothing', async (t) => {
  const system = longSystem();
  const prefix = await count(acme, { system, messages: [] });
  await create(acme, { system, messages: user('echo: first') });
  const full = await count(acme, { system, messages: user('A different question, same prefix') });
  const { usage } = await create(acme, { system, messages: user('A different question, same prefix') });
  t.equal(usage.cache_read_input_tokens, prefix);
  t.equal(usage.cache_creation_input_tokens, 0);
  t.same(usage.cache_creation, writes(0, 0));
  t.equal(usage.input_tokens, full - prefix, 'input + reads = the prompt: nothing counted twice');
});

t.test(
  'an identical request: the upstream’s own cached tokens count as reads when they cover more than the prefix',
  async (t) => {
    const system = longSystem();
    const messages = user(
      `echo: ${'a long question that makes the prompt go well past the marked prefix, '.repeat(4)}`,
    );
    const prefix = await count(acme, { system, messages: [] });
    const full = await count(acme, { system, messages });
    await create(acme, { system, messages });
    const { usage } = await create(acme, { system, messages });
    // The sim caches like vLLM: 16-token blocks, at least one prompt token computed (sim/README.md).
    const upstream = Math.floor((full - 1) / 16) * 16;
    t.ok(upstream > prefix, 'the upstream cached more than the marked prefix');
    t.equal(usage.cache_read_input_tokens, upstream, 'max(registry, upstream)');
    t.equal(usage.cache_creation_input_tokens, 0);
    t.equal(usage.input_tokens, full - upstream);
  },
);

t.test('a 1-hour mark is reported as ephemeral_1h_input_tokens; mixed TTLs split at the marks', async (t) => {
  const system = longSystem('1h');
  const prefix = await count(acme, { system, messages: [] });
  const first = (await create(acme, { system, messages: user('echo: hour') })).usage;
  t.same(first.cache_creation, writes(0, prefix));
  t.equal(first.cache_creation_input_tokens, prefix);

  const tools: Anthropic.Tool[] = [
    {
      name: `lookup_${randomUUID().slice(0, 8)}`,
      description: 'Looks a parcel up by its tracking number.',
      input_schema: { type: 'object', properties: { id: { type: 'string' } } },
      cache_control: { type: 'ephemeral', ttl: '1h' },
    },
  ];
  const system5m = longSystem();
  const toolsPrefix = await count(acme, { tools, messages: [] });
  const bothPrefix = await count(acme, { tools, system: system5m, messages: [] });
  const mixed = (await create(acme, { tools, system: system5m, messages: user('echo: mixed') })).usage;
  t.same(
    mixed.cache_creation,
    writes(bothPrefix - toolsPrefix, toolsPrefix),
    'tools at 1h, the system after them at 5m',
  );
  t.equal(mixed.cache_creation_input_tokens, bothPrefix);
});

t.test('another organization has its own cache: the same prefix is written again', async (t) => {
  const system = longSystem();
  const prefix = await count(acme, { system, messages: [] });
  await create(acme, { system, messages: user('echo: one') });
  t.equal((await create(acme, { system, messages: user('Two, please') })).usage.cache_read_input_tokens, prefix);
  const other = (await create(globex, { system, messages: user('Three, please') })).usage;
  t.equal(other.cache_creation_input_tokens, prefix);
  t.equal(other.cache_read_input_tokens, 0);
});

t.test(
  'a conversation that moves its mark to the last turn reads the earlier turns (lookback) and writes the new one',
  async (t) => {
    const system: System = [
      { type: 'text', text: `Conversation ${randomUUID()}. ${'Keep answers short. '.repeat(40)}` },
    ];
    const turn1: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'echo: first turn', cache_control: { type: 'ephemeral' } }] },
    ];
    const prefix1 = await count(acme, { system, messages: turn1 });
    const first = (await create(acme, { system, messages: turn1 })).usage;
    t.equal(first.cache_creation_input_tokens, prefix1);
    const turn2: Anthropic.MessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'echo: first turn' }] },
      { role: 'assistant', content: 'first turn' },
      { role: 'user', content: [{ type: 'text', text: 'echo: second turn', cache_control: { type: 'ephemeral' } }] },
    ];
    const prefix2 = await count(acme, { system, messages: turn2 });
    const second = (await create(acme, { system, messages: turn2 })).usage;
    const read = present(second.cache_read_input_tokens, 'cache_read_input_tokens');
    t.ok(read >= prefix1 && read < prefix2, `reads the first turn (${read} ≥ ${prefix1})`);
    t.equal(
      read + present(second.cache_creation_input_tokens, 'cache_creation_input_tokens'),
      prefix2,
      'and writes the rest up to the new mark',
    );
  },
);

t.test(
  'streaming reports the same usage in message_start, message_delta and the final message as the body does',
  async (t) => {
    const system = longSystem();
    const prefix = await count(acme, { system, messages: [] });
    // The questions differ from their first token, so the upstream's cache of the first one ends within the prefix.
    for (const [round, question] of [
      ['write', 'echo: streamed one'],
      ['read', 'Streamed two, please'],
    ] as const) {
      const full = await count(acme, { system, messages: user(question) });
      const expected =
        round === 'write'
          ? {
              input_tokens: full - prefix,
              cache_creation_input_tokens: prefix,
              cache_read_input_tokens: 0,
              cache_creation: writes(prefix, 0),
            }
          : {
              input_tokens: full - prefix,
              cache_creation_input_tokens: 0,
              cache_read_input_tokens: prefix,
              cache_creation: writes(0, 0),
            };
      const stream = acme.messages.stream({ model: MODEL, max_tokens: 8, system, messages: user(question) });
      let start: Anthropic.Usage | undefined;
      let delta: Anthropic.MessageDeltaUsage | undefined;
      stream.on('streamEvent', (event) => {
        // Copied: the SDK goes on updating the message_start object it accumulates into.
        if (event.type === 'message_start') start = structuredClone(event.message.usage);
        if (event.type === 'message_delta') delta = structuredClone(event.usage);
      });
      const final = await stream.finalMessage();
      t.match(start, { ...expected, output_tokens: 0 }, `${round}: message_start`);
      t.match(
        delta,
        {
          input_tokens: expected.input_tokens,
          cache_creation_input_tokens: expected.cache_creation_input_tokens,
          cache_read_input_tokens: expected.cache_read_input_tokens,
        },
        `${round}: message_delta`,
      );
      t.match(final.usage, expected, `${round}: the final message`);
    }
  },
);

t.test('no marks: nothing is written, and the upstream’s own cached tokens stay reads', async (t) => {
  const system: System = [{ type: 'text', text: `Unmarked ${randomUUID()}. ${'Be precise. '.repeat(60)}` }];
  const first = (await create(acme, { system, messages: user('echo: unmarked') })).usage;
  t.equal(first.cache_creation_input_tokens, 0);
  t.same(first.cache_creation, writes(0, 0));
  const second = (await create(acme, { system, messages: user('echo: unmarked') })).usage;
  const full = await count(acme, { system, messages: user('echo: unmarked') });
  t.equal(second.cache_creation_input_tokens, 0);
  t.equal(second.cache_read_input_tokens, Math.floor((full - 1) / 16) * 16, 'the sim’s prefix cache');
  t.equal(second.input_tokens + present(second.cache_read_input_tokens, 'cache_read_input_tokens'), full);
});

t.test('more than 4 marks, or a TTL other than 5m and 1h, is a 400 invalid_request_error', async (t) => {
  const block = (text: string): Anthropic.TextBlockParam => ({
    type: 'text',
    text,
    cache_control: { type: 'ephemeral' },
  });
  t.match(await rejection(create(acme, { system: ['a', 'b', 'c', 'd', 'e'].map(block), messages: user('hi') })), {
    status: 400,
    error: {
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.',
      },
    },
  });
  const bad = {
    type: 'text',
    text: 'x',
    cache_control: { type: 'ephemeral', ttl: '10m' },
  } as unknown as Anthropic.TextBlockParam;
  t.match(await rejection(create(acme, { system: [bad], messages: user('hi') })), {
    status: 400,
    error: { error: { type: 'invalid_request_error', message: /ttl/ } },
  });
});

t.test('the chat dialect is untouched: its cached tokens stay within prompt_tokens', async (t) => {
  const key = (await store.keys.create('acme', 'chat')).key;
  const body = {
    model: MODEL,
    max_tokens: 4,
    messages: [
      { role: 'system', content: `Chat ${randomUUID()} ${'Be kind. '.repeat(40)}` },
      { role: 'user', content: 'echo: hi' },
    ],
  };
  const post = async (): Promise<{
    usage: { prompt_tokens: number; prompt_tokens_details?: Record<string, unknown> };
  }> =>
    (
      await fetch(`${stack.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).json() as never;
  await post();
  const { usage } = await post();
  t.same(Object.keys(usage.prompt_tokens_details ?? {}), ['cached_tokens'], 'OpenAI’s shape, no gateway fields');
  t.ok(
    (usage.prompt_tokens_details?.cached_tokens as number) > 0 &&
      (usage.prompt_tokens_details?.cached_tokens as number) < usage.prompt_tokens,
  );
});

t.test('after the TTL the prefix is written again; a 1-hour prefix outlives a 5-minute one', async (t) => {
  // The registry's clock: five minutes pass when the test says so.
  const clock = new TestClock();
  const short = await startStack({ yaml: CHAIN, now: clock.now });
  const db = await openStore({ dataDir: short.dataDir });
  t.teardown(async () => {
    await db.close();
    await short.close();
  });
  const client = await clientFor(short, db, 'acme');
  const fiveMinutes = longSystem();
  const oneHour = longSystem('1h');
  const prefix5m = await count(client, { system: fiveMinutes, messages: [] });
  const prefix1h = await count(client, { system: oneHour, messages: [] });
  t.equal(
    (await create(client, { system: fiveMinutes, messages: user('echo: a') })).usage.cache_creation_input_tokens,
    prefix5m,
  );
  t.equal(
    (await create(client, { system: oneHour, messages: user('echo: a') })).usage.cache_creation_input_tokens,
    prefix1h,
  );
  clock.advance(5 * 60_000);
  const expired = (await create(client, { system: fiveMinutes, messages: user('Bravo') })).usage;
  t.equal(expired.cache_creation_input_tokens, prefix5m, 'the 5-minute prefix expired: written again');
  t.equal(present(expired.cache_read_input_tokens, 'cache_read_input_tokens') < prefix5m, true);
  const alive = (await create(client, { system: oneHour, messages: user('Bravo') })).usage;
  t.equal(alive.cache_read_input_tokens, prefix1h, 'the 1-hour prefix is still read');
  t.equal(alive.cache_creation_input_tokens, 0);
});

t.test('with Redis, two gateway nodes share the cache: written on one, read on the other', async (t) => {
  const redis: RunningRedis = await startRedis();
  const dataDir = `${stack.dataDir}-shared`;
  const env = { GATEWAY_REDIS_URL: redis.url, GATEWAY_DATA_DIR: dataDir };
  // The store (and its migrations) first, then the nodes one after the other.
  const db = await openStore({ dataDir });
  const one = await startStack({ yaml: CHAIN, env });
  const two = await startStack({ yaml: CHAIN, env });
  t.teardown(async () => {
    await db.close();
    await Promise.all([one.close(), two.close()]);
    await redis.close();
  });
  const onOne = await clientFor(one, db, 'acme');
  const onTwo = await clientFor(two, db, 'acme');
  const system = longSystem();
  const prefix = await count(onOne, { system, messages: [] });
  t.equal(
    (await create(onOne, { system, messages: user('echo: node one') })).usage.cache_creation_input_tokens,
    prefix,
  );
  const read = (await create(onTwo, { system, messages: user('Node two, please') })).usage;
  t.equal(read.cache_read_input_tokens, prefix, 'the other node reads it');
  t.equal(read.cache_creation_input_tokens, 0);
});
