// What the gateway learns of a real llama-server and how it copes with the server's settings: the flavor
// detected (or a configured one that disagrees, warned about), the tokenizer following it, raw <think>
// text from `--reasoning-format none`, and a prompt cache shared by every organization.
import t from 'tap';
import { SAYS } from '../../upstream-tier/tiny-qwen3-answers.js';
import { askRaw } from './dialect-answers.js';
import { ledgerCheck, startLlamaStack, startTinyLlama, TIER_TIMEOUT_MS } from './llama-stack.js';
import { orgWithKey } from '../helpers/org-key.js';
import { startRecordingProxy } from '../helpers/recording-proxy.js';

t.setTimeout(TIER_TIMEOUT_MS);

t.test('with upstream.flavor unset, the gateway finds llama-server and answers as with the flavor set', async (t) => {
  const llama = await startLlamaStack(t, { flavor: null });
  const detected = await llama.stack.logged((entry) => entry.msg === 'upstream flavor as the upstream shows it');
  t.equal(detected.flavor, 'llama-server');
  const answer = await askRaw(llama.url, llama.key, { dialect: 'messages', stream: false, thinking: false });
  t.equal(answer.text, SAYS.content, 'the thinking switch reached the server');
  t.equal(answer.reasoning, '');
});

t.test('a configured flavor that disagrees with the server is named in a warning at start', async (t) => {
  const llama = await startLlamaStack(t, { flavor: 'vllm' });
  const warning = await llama.stack.logged((entry) => typeof entry.detected === 'string');
  t.match(warning, { flavor: 'vllm', detected: 'llama-server' });
  t.match(String(warning.msg), /upstream\.flavor is vllm but the upstream is llama-server/);
});

t.test(
  'regression: tokenizer.source upstream in front of llama-server gave 502 on every count; it follows the flavor',
  async (t) => {
    const llama = await startLlamaStack(t, { yaml: 'tokenizer:\n  source: upstream' });
    const conversation = {
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Sure:' },
      ],
    };
    const counted = await fetch(`${llama.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${llama.key}` },
      body: JSON.stringify({ model: 'qwen3-8b', ...conversation }),
    });
    t.equal(counted.status, 200);
    t.same(await counted.json(), { input_tokens: 15 }, 'the prefill counted as the continuation the server renders');
  },
);

t.test(
  'regression: --reasoning-format none put raw <think> text into the answer; the gateway separates it',
  async (t) => {
    const llama = await startLlamaStack(t, { extraArgs: ['--reasoning-format', 'none'] });
    for (const dialect of ['chat', 'messages', 'responses'] as const) {
      for (const stream of [false, true]) {
        const answer = await askRaw(llama.url, llama.key, { dialect, stream });
        t.equal(answer.reasoning, SAYS.reasoning, `${dialect}${stream ? ', streamed' : ''}: the reasoning`);
        t.equal(answer.text, SAYS.content, `${dialect}${stream ? ', streamed' : ''}: the text alone`);
      }
    }
  },
);

t.test(
  "regression: one organization's prompt was billed to another as a cache read by llama-server's shared slots",
  async (t) => {
    const llama = await startLlamaStack(t);
    const other = await orgWithKey(llama.store, 'globex', { credits: 10 });
    const question = { dialect: 'messages' as const, stream: false };
    const first = await askRaw(llama.url, llama.key, question);
    const second = await askRaw(llama.url, other.key, question);
    t.equal(first.usage?.input, second.usage?.input, 'the same prompt');
    const rows = await llama.store.db.selectFrom('usage').select(['org_id', 'cache_read_tokens']).execute();
    t.same(
      rows.map((row) => row.cache_read_tokens),
      [0, 0],
      'no cache read billed: the server cache is shared by every organization',
    );
  },
);

t.test('cache_isolation no_reuse: llama-server is asked to reuse no prompt, and reports none reused', async (t) => {
  const llama = await startTinyLlama(t);
  const proxy = await startRecordingProxy(llama.url);
  t.teardown(() => proxy.close());
  const stack = await startLlamaStack(t, {
    llama: { ...llama, url: proxy.url },
    upstream: ['cache_isolation: no_reuse'],
  });
  for (let index = 0; index < 2; index++) await askRaw(stack.url, stack.key, { dialect: 'chat', stream: false });
  const calls = proxy.exchanges().filter((exchange) => exchange.path === '/v1/chat/completions');
  t.equal(calls.length, 2);
  for (const call of calls) {
    t.match(call.body, { cache_prompt: false }, 'the server is told not to reuse');
    t.notMatch(call.response, /"cache_n":[1-9]/, 'and takes nothing from its cache');
  }
  const checked = ledgerCheck(stack.stack);
  t.equal(checked.code, 0, checked.out + checked.err);
});
