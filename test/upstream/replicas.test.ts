// Two real llama-servers behind one gateway (docs/upstreams.md, "Several replicas"): with affinity routing a
// conversation's turns all go to one server, whose prompt cache then holds their prefix (`cache_n` in its
// timings); taking turns between the servers, the next turn finds a cold cache.
import t, { type Test } from 'tap';
import { askRaw } from './dialect-answers.js';
import { startLlamaStack, startTinyLlama, TIER_TIMEOUT_MS } from './llama-stack.js';
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from '../helpers/recording-proxy.js';

t.setTimeout(TIER_TIMEOUT_MS);

const FOLLOW_UPS = ['And in Lisbon?', 'And in Rome?', 'And in Oslo?'];

/** Two tiny llama-servers, each behind a recording proxy, and a gateway in front of both. */
async function twoServers(t: Test, routing: string) {
  const servers = [await startTinyLlama(t), await startTinyLlama(t)];
  const proxies = await Promise.all(servers.map((server) => startRecordingProxy(server.url)));
  t.teardown(async () => {
    for (const proxy of proxies) await proxy.close();
  });
  const stack = await startLlamaStack(t, {
    llama: servers[0]!,
    upstreamUrls: proxies.map((proxy) => `${proxy.url}/v1`),
    upstream: [`routing: ${routing}`],
  });
  return { stack, proxies };
}

/** A conversation of four turns opening with `question`, each turn the history so far and a new question. */
async function converse(url: string, key: string, question: string): Promise<void> {
  const messages: Array<{ role: 'user' | 'assistant'; content: string }> = [{ role: 'user', content: question }];
  for (const followUp of [...FOLLOW_UPS, undefined]) {
    const answer = await askRaw(url, key, { dialect: 'chat', stream: false, thinking: false, messages });
    if (answer.status !== 200) throw new Error(`status ${answer.status}: ${JSON.stringify(answer.error)}`);
    if (followUp === undefined) return;
    messages.push({ role: 'assistant', content: answer.text }, { role: 'user', content: followUp });
  }
}

/** The chat calls of the conversation opening with `question`, on each replica, in order. */
function callsOf(proxies: RecordingProxy[], question: string): RecordedExchange[][] {
  return proxies.map((proxy) =>
    proxy
      .exchanges()
      .filter(
        (exchange) =>
          exchange.path === '/v1/chat/completions' &&
          (exchange.body as { messages: Array<{ content: string }> }).messages[0]!.content === question,
      ),
  );
}

/** The prompt tokens the server read from its cache for a call (its timings' cache_n). */
function cacheRead(call: RecordedExchange): number {
  const found = /"cache_n":(\d+)/.exec(call.response);
  return found === null ? 0 : Number(found[1]);
}

t.test(
  "affinity: each conversation's turns go to one llama-server, and every turn after the first reads its prefix from that server's cache",
  async (t) => {
    const { stack, proxies } = await twoServers(t, 'affinity');
    for (const question of ['What is the weather in Paris?', 'Will it rain in Madrid?']) {
      await converse(stack.url, stack.key, question);
      const calls = callsOf(proxies, question);
      t.same(calls.map((on) => on.length).toSorted(), [0, 4], `${question}: all four turns on one server`);
      const turns = calls.find((on) => on.length === 4)!;
      // The first turn may read the chat template's opening that another conversation on the server left cached.
      const first = cacheRead(turns[0]!);
      for (const [index, turn] of turns.slice(1).entries())
        t.ok(
          cacheRead(turn) > first,
          `${question}: turn ${index + 2} read ${cacheRead(turn)} tokens from the cache, the first ${first}`,
        );
    }
  },
);

t.test(
  'round_robin: the turns alternate between the servers, and a turn on the other one finds nothing cached',
  async (t) => {
    const { stack, proxies } = await twoServers(t, 'round_robin');
    const question = 'What is the weather in Paris?';
    await converse(stack.url, stack.key, question);
    const calls = callsOf(proxies, question);
    t.same(
      calls.map((on) => on.length),
      [2, 2],
    );
    const second = calls.flat().find((call) => (call.body as { messages: unknown[] }).messages.length === 3)!;
    t.equal(cacheRead(second), 0, 'the second turn, on the server that did not see the first, reads no cache');
  },
);
