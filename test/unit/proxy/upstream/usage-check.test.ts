// The usage check at the terminal: what an upstream may report, and what replaces what it may not.
import t from 'tap';
import type { ChatChunk, ChatRequest, ChatUsage } from '../../../../core/canonical.js';
import { UsageCheck } from '../../../../proxy/upstream/usage-check.js';
import { estimateInputTokens } from '../../../../limits/estimate.js';
import { chatChunk } from '../../../kit/chunks.js';

const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'Tell me a story about a cat.' }] };
const MAX_CONTEXT = 32768;

function logged(): { warnings: Array<Record<string, unknown>>; log: { warn(fields: object): void } } {
  const warnings: Array<Record<string, unknown>> = [];
  return { warnings, log: { warn: (fields: object) => void warnings.push(fields as Record<string, unknown>) } };
}

/** A content chunk carrying whatever usage an upstream reported (malformed ones included). */
function chunk(content: string, usage?: unknown): ChatChunk {
  const out = chatChunk({ content }, { finish_reason: null });
  if (usage !== undefined) out.usage = usage as ChatUsage;
  return out;
}

/** Runs the chunks through one check and returns the last usage and the warnings. */
function check(
  chunks: ChatChunk[],
  on: ChatRequest = request,
): { usage: ChatUsage | null | undefined; warnings: Array<Record<string, unknown>> } {
  const { warnings, log } = logged();
  const usage = new UsageCheck(on, MAX_CONTEXT, log);
  for (const one of chunks) usage.see(one);
  return { usage: chunks.at(-1)?.usage, warnings };
}

t.test('usage within bounds passes as reported, total recomputed', async (t) => {
  const { usage, warnings } = check([
    chunk('Once upon a time', {
      prompt_tokens: 20,
      completion_tokens: 4,
      total_tokens: 999,
      prompt_tokens_details: { cached_tokens: 16 },
    }),
  ]);
  t.same(usage, {
    prompt_tokens: 20,
    completion_tokens: 4,
    total_tokens: 24,
    prompt_tokens_details: { cached_tokens: 16 },
  });
  t.same(warnings, []);
});

t.test(
  'a count that is negative, fractional, non-finite, not a number or above the context is replaced, and logged once',
  async (t) => {
    const estimate = estimateInputTokens(request);
    for (const bad of [-1, 2.5, Infinity, NaN, 1e18, MAX_CONTEXT + 1, '12', null, undefined]) {
      const { usage, warnings } = check([chunk('Once upon a time', { prompt_tokens: bad, completion_tokens: bad })]);
      t.same(
        usage,
        {
          prompt_tokens: estimate,
          completion_tokens: Math.ceil(Buffer.byteLength('Once upon a time') / 3),
          total_tokens: estimate + 6,
        },
        String(bad),
      );
      t.equal(warnings.length, 1, `${String(bad)}: one warning`);
      t.same(warnings[0]?.replaced, ['prompt_tokens', 'completion_tokens']);
    }
  },
);

t.test('usage that is not an object is replaced as a whole', async (t) => {
  const { usage } = check([chunk('abc', 'lots')]);
  t.same(usage, {
    prompt_tokens: estimateInputTokens(request),
    completion_tokens: 1,
    total_tokens: estimateInputTokens(request) + 1,
  });
});

t.test(
  'output tokens beyond the produced text are replaced; silent tokens, tool-call markup and a matched stop string are allowed for',
  async (t) => {
    t.equal(
      check([chunk('Hi', { prompt_tokens: 5, completion_tokens: 2 + 32 })]).usage?.completion_tokens,
      34,
      'two bytes and the silent allowance',
    );
    t.equal(
      check([chunk('Hi', { prompt_tokens: 5, completion_tokens: 2 + 33 })]).usage?.completion_tokens,
      1,
      'one more is out: 2 bytes / 3',
    );
    const call: ChatChunk = {
      id: 'c',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          },
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 5, completion_tokens: 3 + 64, total_tokens: 0 },
    };
    t.equal(check([call]).usage?.completion_tokens, 67, 'a tool call adds its markup');
    const stopped = { ...request, stop: ['THE END OF THE STORY'] };
    t.equal(
      check([chunk('Hi', { prompt_tokens: 5, completion_tokens: 2 + 32 + 20 })], stopped).usage?.completion_tokens,
      54,
      'a stop string is counted but not shown',
    );
  },
);

t.test(
  'a running usage (one on every chunk) is checked against the text produced so far, and warned about once',
  async (t) => {
    const { warnings, log } = logged();
    const usage = new UsageCheck(request, MAX_CONTEXT, log);
    const chunks = [
      chunk('One', { prompt_tokens: 5, completion_tokens: 1 }),
      chunk(' two', { prompt_tokens: 5, completion_tokens: 1e9 }),
      chunk(' three', { prompt_tokens: 5, completion_tokens: 1e9 }),
    ];
    for (const one of chunks) usage.see(one);
    t.same(
      chunks.map((one) => one.usage?.completion_tokens),
      [1, Math.ceil(7 / 3), Math.ceil(13 / 3)],
    );
    t.equal(warnings.length, 1);
  },
);

t.test('cached tokens above the prompt, or not a count, become 0 (full input price)', async (t) => {
  t.same(
    check([chunk('x', { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 11 } })]).usage
      ?.prompt_tokens_details,
    { cached_tokens: 0 },
  );
  t.same(
    check([chunk('x', { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: -3 } })]).usage
      ?.prompt_tokens_details,
    { cached_tokens: 0 },
  );
  t.notOk(
    check([chunk('x', { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: null })]).usage
      ?.prompt_tokens_details,
    'none reported, none kept',
  );
});

t.test("the gateway's own usage fields are never taken from the upstream", async (t) => {
  const { usage } = check([
    chunk('x', {
      prompt_tokens: 10,
      completion_tokens: 1,
      web_search_requests: 1e6,
      prompt_tokens_details: {
        cached_tokens: 2,
        cache_creation: { ephemeral_5m_input_tokens: 8, ephemeral_1h_input_tokens: 0 },
      },
    }),
  ]);
  t.same(usage, {
    prompt_tokens: 10,
    completion_tokens: 1,
    total_tokens: 11,
    prompt_tokens_details: { cached_tokens: 2 },
  });
});

t.test(
  "where the upstream's prompt cache is shared between organizations, its cached tokens are plain input (0), silently",
  async (t) => {
    const { warnings, log } = logged();
    const usage = new UsageCheck(request, MAX_CONTEXT, log, false);
    const last = chunk('Once', {
      prompt_tokens: 20,
      completion_tokens: 1,
      prompt_tokens_details: { cached_tokens: 16 },
    });
    usage.see(last);
    t.same(last.usage, {
      prompt_tokens: 20,
      completion_tokens: 1,
      total_tokens: 21,
      prompt_tokens_details: { cached_tokens: 0 },
    });
    t.same(warnings, [], 'not a fault of the upstream: nothing logged');
    const unreported = chunk('Once', { prompt_tokens: 20, completion_tokens: 1 });
    new UsageCheck(request, MAX_CONTEXT, log, false).see(unreported);
    t.same(unreported.usage, { prompt_tokens: 20, completion_tokens: 1, total_tokens: 21 }, 'no details made up');
  },
);
