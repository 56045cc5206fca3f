// The promptcache plugin's parts: prefixes and their hashes in Anthropic's cache order (tools, system,
// messages) from a message-dialect request's cache blocks, the split of a prompt into reads and writes
// per TTL, the registry's expiry.
import t from 'tap';
import { createMessagesDecoders } from '../../../../dialects/messages/decode.js';
import { messagesToChat } from '../../../../dialects/messages/to-chat.js';
import { splitPrompt } from '../../../../plugins/promptcache/accounting.js';
import {
  cachePrefixes as prefixesOfBlocks,
  canonicalJson,
  LOOKBACK_BLOCKS,
  type CachePrefixes,
} from '../../../../plugins/promptcache/prefixes.js';
import { PromptCache } from '../../../../plugins/promptcache/prompt-cache.js';
import { MemoryRegistry } from '../../../../plugins/promptcache/registry.js';
import { GatewayError } from '../../../../core/errors.js';

const decoders = createMessagesDecoders('m', 8000);
/** The prefixes of a message-dialect body, as the plugin gets them: from the decoded request's cache blocks. */
const cachePrefixes = (body: unknown): CachePrefixes | undefined =>
  prefixesOfBlocks(decoders.decode(body).request.gateway?.cache_blocks ?? []);

const mark = { type: 'ephemeral' };
const tool = (name: string, extra: object = {}) => ({
  name,
  description: `the ${name} tool`,
  input_schema: { type: 'object', properties: { q: { type: 'string' } } },
  ...extra,
});
const text = (value: string, extra: object = {}) => ({ type: 'text', text: value, ...extra });

function request(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: 'm',
    max_tokens: 10,
    tools: [tool('a'), tool('b')],
    system: [text('You are terse.'), text('Answer in English.')],
    messages: [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: [text('Hello.')] },
      { role: 'user', content: [text('Weather?'), text('In Oslo.')] },
    ],
    ...overrides,
  };
}

/** The request with a mark on the block at `path` (e.g. ['system', 1]). */
function marked(base: Record<string, unknown>, ...paths: Array<Array<string | number>>): Record<string, unknown> {
  const copy = structuredClone(base);
  for (const path of paths) {
    let node: Record<string, unknown> = copy;
    for (const step of path) node = (node as Record<string | number, unknown>)[step] as Record<string, unknown>;
    node.cache_control = mark;
  }
  return copy;
}

t.test('no cache_control: no prefixes', async (t) => {
  t.equal(cachePrefixes(request()), undefined);
});

t.test('positions follow the cache order: tools, then system blocks, then message blocks', async (t) => {
  const prefixes = cachePrefixes(marked(request(), ['tools', 1], ['system', 0], ['messages', 2, 'content', 1]))!;
  t.same(
    prefixes.breakpoints.map((b) => b.position),
    [1, 2, 7],
    'tools 0–1, system 2–3, messages 4 (string), 5, 6–7',
  );
  t.same(
    prefixes.breakpoints.map((b) => b.ttl),
    ['5m', '5m', '5m'],
  );
  t.same(
    prefixes.breakpoints[0]!.prefix(),
    messagesToChat({ model: 'm', tools: [tool('a'), tool('b', { cache_control: mark })], messages: [] }),
    'a tool mark cuts after the tools',
  );
  const system = prefixes.breakpoints[1]!.prefix();
  t.same(
    system.messages,
    [{ role: 'system', content: 'You are terse.' }],
    'a system mark keeps the tools and cuts the system',
  );
  t.equal(system.tools?.length, 2);
  const last = prefixes.breakpoints[2]!.prefix();
  t.equal(last.messages.length, 4, 'a message mark keeps the system prompt and the earlier messages');
  const messages = [
    { role: 'user' as const, content: 'Hi' },
    { role: 'assistant' as const, content: [text('Hello.')] },
    { role: 'user' as const, content: [text('Weather?'), text('In Oslo.', { cache_control: mark })] },
  ];
  const cut = {
    model: 'm',
    tools: [tool('a'), tool('b')],
    system: [text('You are terse.'), text('Answer in English.')],
    messages,
  };
  t.same(last, messagesToChat(cut as Parameters<typeof messagesToChat>[0]), 'cut after the marked block');
});

t.test('a prefix hash covers everything before the mark, in order, and nothing after', async (t) => {
  const base = marked(request(), ['system', 1]);
  const hash = (body: Record<string, unknown>): string => cachePrefixes(body)!.breakpoints[0]!.hash;
  const h = hash(base);
  t.equal(
    hash({ ...base, messages: [{ role: 'user', content: 'something else' }] }),
    h,
    'later messages do not change it',
  );
  t.not(hash({ ...base, tools: [tool('b'), tool('a')] }), h, 'tool order matters');
  t.not(hash({ ...base, tools: [tool('a')] }), h, 'the tools before the system matter');
  t.not(
    hash({ ...base, system: [text('You are verbose.'), (base.system as object[])[1]] }),
    h,
    'earlier system blocks matter',
  );
  t.not(hash({ ...base, tools: undefined }), h);
});

t.test('the hash ignores the marks themselves, their TTL and key order', async (t) => {
  const a = cachePrefixes(marked(request(), ['messages', 2, 'content', 0]))!.breakpoints[0]!;
  const withTtl = marked(request(), ['system', 0]);
  (withTtl.messages as Array<{ content: Array<Record<string, unknown>> }>)[2]!.content[0]!.cache_control = {
    type: 'ephemeral',
    ttl: '1h',
  };
  const b = cachePrefixes(withTtl)!.breakpoints[1]!;
  t.equal(b.hash, a.hash, 'an extra mark earlier and a 1h TTL: the same prefix');
  t.equal(b.ttl, '1h');
  const reordered = request({
    tools: [
      { input_schema: { properties: { q: { type: 'string' } }, type: 'object' }, description: 'the a tool', name: 'a' },
      tool('b'),
    ],
  });
  t.equal(
    cachePrefixes(marked(reordered, ['messages', 2, 'content', 0]))!.breakpoints[0]!.hash,
    a.hash,
    'key order does not matter',
  );
  t.equal(canonicalJson({ b: 1, a: [{ d: 1, c: 2 }] }), '{"a":[{"c":2,"d":1}],"b":1}');
});

t.test('a string and one text block are the same content; the place of a block matters', async (t) => {
  const asString = marked(
    request({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'user', content: [text('x')] },
      ],
    }),
    ['messages', 1, 'content', 0],
  );
  const asBlock = marked(
    request({
      messages: [
        { role: 'user', content: [text('Hi')] },
        { role: 'user', content: [text('x')] },
      ],
    }),
    ['messages', 1, 'content', 0],
  );
  t.equal(cachePrefixes(asString)!.breakpoints[0]!.hash, cachePrefixes(asBlock)!.breakpoints[0]!.hash);
  const system = request({
    system: 'Be brief.',
    messages: [{ role: 'user', content: [text('x', { cache_control: mark })] }],
  });
  const systemAsMessage = request({
    system: undefined,
    messages: [
      { role: 'user', content: 'Be brief.' },
      { role: 'user', content: [text('x', { cache_control: mark })] },
    ],
  });
  t.not(
    cachePrefixes(system)!.breakpoints[0]!.hash,
    cachePrefixes(systemAsMessage)!.breakpoints[0]!.hash,
    'system text is not user text',
  );
  const twoMessages = request({
    system: undefined,
    tools: undefined,
    messages: [{ role: 'user', content: [text('a'), text('b', { cache_control: mark })] }],
  });
  const split = request({
    system: undefined,
    tools: undefined,
    messages: [
      { role: 'user', content: [text('a')] },
      { role: 'user', content: [text('b', { cache_control: mark })] },
    ],
  });
  t.not(
    cachePrefixes(twoMessages)!.breakpoints[0]!.hash,
    cachePrefixes(split)!.breakpoints[0]!.hash,
    'message boundaries matter',
  );
});

t.test('lookups: each breakpoint and the 20 blocks before it, in order', async (t) => {
  const messages = Array.from({ length: 30 }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: [text(`turn ${i}`)],
  }));
  const body = marked(request({ tools: undefined, system: undefined, messages }), ['messages', 29, 'content', 0]);
  const prefixes = cachePrefixes(body)!;
  t.same(
    prefixes.lookups.map((l) => l.position),
    Array.from({ length: LOOKBACK_BLOCKS + 1 }, (_, i) => 29 - LOOKBACK_BLOCKS + i),
  );
  const shorter = cachePrefixes(
    marked(request({ tools: undefined, system: undefined, messages: messages.slice(0, 20) }), [
      'messages',
      19,
      'content',
      0,
    ]),
  )!;
  t.equal(
    prefixes.lookups.find((l) => l.position === 19)?.hash,
    shorter.breakpoints[0]!.hash,
    'an earlier turn’s breakpoint is found by its hash',
  );
});

t.test('bad marks are refused as Anthropic refuses them', async (t) => {
  const five = marked(
    request(),
    ['tools', 0],
    ['tools', 1],
    ['system', 0],
    ['system', 1],
    ['messages', 1, 'content', 0],
  );
  t.throws(
    () => cachePrefixes(five),
    new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      'A maximum of 4 blocks with cache_control may be provided. Found 5.',
      'cache_control',
    ),
  );
  const badTtl = request({ system: [text('x', { cache_control: { type: 'ephemeral', ttl: '10m' } })] });
  t.throws(() => cachePrefixes(badTtl), { code: 'GW_ERR_REQUEST_INVALID', param: 'system[0].cache_control.ttl' });
  const badType = request({ system: [text('x', { cache_control: { type: 'persistent' } })] });
  t.throws(() => cachePrefixes(badType), { code: 'GW_ERR_REQUEST_INVALID', param: 'system[0].cache_control.type' });
});

t.test('the split: reads up to the hit, 1h writes up to the last 1h mark, 5m writes to the last mark', async (t) => {
  t.same(splitPrompt(1000, 0, 0, [{ tokens: 600, ttl: '5m' }]), { read: 0, write1h: 0, write5m: 600 }, 'first request');
  t.same(
    splitPrompt(1000, 600, 0, [{ tokens: 600, ttl: '5m' }]),
    { read: 600, write1h: 0, write5m: 0 },
    'second request',
  );
  t.same(
    splitPrompt(1000, 0, 0, [
      { tokens: 300, ttl: '1h' },
      { tokens: 800, ttl: '5m' },
    ]),
    { read: 0, write1h: 300, write5m: 500 },
    'mixed TTLs',
  );
  t.same(
    splitPrompt(1000, 300, 0, [
      { tokens: 300, ttl: '1h' },
      { tokens: 800, ttl: '5m' },
    ]),
    { read: 300, write1h: 0, write5m: 500 },
    'the 1h prefix cached',
  );
  t.same(
    splitPrompt(1000, 600, 704, [{ tokens: 600, ttl: '5m' }]),
    { read: 704, write1h: 0, write5m: 0 },
    'the org has every marked prefix and the upstream cached more: the larger read',
  );
  t.same(
    splitPrompt(1000, 600, 1000, [{ tokens: 600, ttl: '5m' }]),
    { read: 1000, write1h: 0, write5m: 0 },
    'at most the prompt',
  );
  t.same(
    splitPrompt(1000, 0, 512, [{ tokens: 600, ttl: '5m' }]),
    { read: 0, write1h: 0, write5m: 600 },
    'a prefix new to the org is written, whatever the shared upstream cache holds',
  );
  t.same(
    splitPrompt(1000, 300, 704, [
      { tokens: 300, ttl: '1h' },
      { tokens: 600, ttl: '5m' },
    ]),
    { read: 300, write1h: 0, write5m: 300 },
    'reads stop where this request writes: never read and written',
  );
  t.same(splitPrompt(1000, 0, 704, []), { read: 704, write1h: 0, write5m: 0 }, 'no marks: the upstream’s reads');
  t.same(
    splitPrompt(500, 0, 0, [{ tokens: 503, ttl: '5m' }]),
    { read: 0, write1h: 0, write5m: 500 },
    'never more than the prompt',
  );
  t.same(splitPrompt(500, 900, 0, []), { read: 500, write1h: 0, write5m: 0 });
});

t.test('the registry forgets a prefix when it expires; a read refreshes it', async (t) => {
  let now = 1_000_000;
  const registry = new MemoryRegistry({ now: () => now });
  const cache = new PromptCache({
    registry,
    ttlMs: { '5m': 300_000, '1h': 3_600_000 },
    countTokens: async (request) => 100 * request.messages.length,
  });
  const body = marked(request({ tools: undefined }), ['system', 1]);
  const first = await cache.plan('org_a', cachePrefixes(body)!);
  t.same(first.split(500, 0), { read: 0, write1h: 0, write5m: 100 }, 'counted: one system message');
  await registry.register('org_a', first.entries(now));
  now += 299_000;
  const second = await cache.plan('org_a', cachePrefixes(body)!);
  t.same(second.split(500, 0), { read: 100, write1h: 0, write5m: 0 });
  t.same(
    (await cache.plan('org_b', cachePrefixes(body)!)).split(500, 0),
    { read: 0, write1h: 0, write5m: 100 },
    'another org has its own cache',
  );
  await registry.register('org_a', second.entries(now));
  now += 299_000;
  t.equal((await cache.plan('org_a', cachePrefixes(body)!)).hitTokens, 100, 'the read refreshed it');
  now += 301_000;
  t.equal((await cache.plan('org_a', cachePrefixes(body)!)).hitTokens, 0, 'expired');
  t.equal(registry.size, 0, 'and dropped');
});

t.test('the registry keeps at most max_entries', async (t) => {
  const registry = new MemoryRegistry({ maxEntries: 2 });
  const later = Date.now() + 60_000;
  await registry.register('o', [
    { hash: 'a', tokens: 1, ttl: '5m', expiresAt: later },
    { hash: 'b', tokens: 1, ttl: '5m', expiresAt: later },
    { hash: 'c', tokens: 1, ttl: '5m', expiresAt: later },
  ]);
  t.equal(registry.size, 2);
  t.same([...(await registry.lookup('o', ['a', 'b', 'c'])).keys()], ['b', 'c'], 'the oldest went');
});
