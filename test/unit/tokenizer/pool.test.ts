import t from 'tap';
import type { ChatRequest } from '../../../core/canonical.js';
import { GatewayError } from '../../../core/errors.js';
import { InProcessCounter } from '../../../tokenizer/in-process-counter.js';
import { LocalModel } from '../../../prompt/local-model.js';
import type { PromptModel } from '../../../tokenizer/prompt-model.js';
import { resolveModelFiles } from '../../../prompt/model-files.js';
import { promptInput } from '../../../tokenizer/request-prompt.js';
import { createTokenCounter } from '../../../tokenizer/token-counter.js';
import { WorkerPool } from '../../../tokenizer/worker-pool.js';
import { REQUESTS, SERVED_MODEL, tokenizerConfig } from './sample-requests.js';

const context = { upstreamUrls: [], servedModel: SERVED_MODEL };
const inline = await createTokenCounter(tokenizerConfig({ workers: 0 }), context);
// Threshold 0: every conversation goes to the pool.
const pooled = await createTokenCounter(tokenizerConfig({ workers: 2, worker_threshold_bytes: 0 }), context);
await pooled.warmUp?.();
t.teardown(async () => {
  await inline.close();
  await pooled.close();
});

/** A conversation of about `kb` KB of JSON. */
function big(kb: number): ChatRequest {
  const line = 'Large prompts are counted in a worker thread, so other streams keep flowing. 大きなプロンプト。\n';
  return {
    model: 'qwen3-8b',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: line.repeat(Math.ceil((kb * 1024) / line.length)) },
    ],
  };
}

t.test('the pool counts every kind of request exactly as inline does', async (t) => {
  for (const [name, request] of Object.entries(REQUESTS)) {
    t.equal(await pooled.count(request), await inline.count(request), name);
  }
  const large = big(100);
  t.equal(await pooled.count(large), await inline.count(large), '100 KB');
  const many = await Promise.all(Object.values(REQUESTS).map((request) => pooled.count(request)));
  t.same(
    many,
    await Promise.all(Object.values(REQUESTS).map((request) => inline.count(request))),
    'concurrent counts, answers matched to their jobs',
  );
});

/**
 * How many times the event loop turned while `counting` was pending: 0 when the count ran on this
 * thread before count() returned; more when it was done elsewhere while this thread went on.
 */
async function loopTurnsWhile(counting: Promise<number>): Promise<{ turns: number; count: number }> {
  let turns = 0;
  let pending = true;
  const turn = (): void => {
    if (!pending) return;
    turns++;
    setImmediate(turn);
  };
  setImmediate(turn);
  const count = await counting.finally(() => (pending = false));
  return { turns, count };
}

/** Qwen3 on the main thread, counting how often it is asked: a count done by a worker never asks it. */
function mainThreadModel(): { model: PromptModel; asked: () => number } {
  const qwen3 = LocalModel.load(resolveModelFiles({}));
  let asked = 0;
  return {
    model: { count: (input) => (asked++, qwen3.count(input)) },
    asked: () => asked,
  };
}

function spiedCounter(options: { workers: number; thresholdBytes: number }): {
  counter: InProcessCounter;
  asked: () => number;
} {
  const { model, asked } = mainThreadModel();
  const counter = new InProcessCounter({
    source: 'local',
    exact: true,
    load: async () => model,
    spec: { kind: 'local', files: resolveModelFiles({}) },
    log: undefined,
    workerIdleMs: 0,
    workerHeapMb: 0,
    ...options,
  });
  return { counter, asked };
}

t.test(
  'a large conversation is counted in a worker while the event loop keeps turning; inline holds the loop',
  async (t) => {
    const { counter, asked } = spiedCounter({ workers: 1, thresholdBytes: 0 });
    t.teardown(() => counter.close());
    await counter.warmUp();
    const large = big(400);

    const inPool = await loopTurnsWhile(counter.count(large));
    t.equal(asked(), 0, "the main thread's model was not asked: a worker counted");
    t.ok(inPool.turns > 0, `the event loop kept turning while the worker counted (${inPool.turns} turns)`);

    const inlined = await loopTurnsWhile(inline.count(large));
    t.equal(inlined.turns, 0, 'inline: the count held the loop until it was done');
    t.equal(inPool.count, inlined.count);
  },
);

t.test(
  'regression: the first large count_tokens after start is counted on the main thread (100,000 messages stalled the loop 3.9 s)',
  async (t) => {
    const { counter, asked } = spiedCounter({ workers: 1, thresholdBytes: 50_000 });
    t.teardown(() => counter.close());
    // No warmUp(): the workers start with this first large conversation, which waits for them.
    const first = await loopTurnsWhile(counter.count(big(60)));
    t.equal(asked(), 0, "the main thread's model was not asked: a worker counted");
    t.ok(first.turns > 0, `the event loop kept turning while the workers started and counted (${first.turns} turns)`);
    t.equal(first.count, await inline.count(big(60)));
  },
);

t.test('large conversations go to the workers, small ones are counted inline; close() ends the workers', async (t) => {
  const counter = await createTokenCounter(tokenizerConfig({ workers: 1, worker_threshold_bytes: 50_000 }), context);
  t.teardown(() => counter.close());
  t.ok((await loopTurnsWhile(counter.count(big(60)))).turns > 0, 'above the threshold: in a worker');
  t.equal((await loopTurnsWhile(counter.count(REQUESTS['multi-turn']!))).turns, 0, 'below the threshold: inline');

  // close() ends the workers: the running and the queued count reject, and so do later large ones.
  const running = t.rejects(counter.count(big(300)), /pool is closed/);
  const queued = t.rejects(counter.count(big(300)), /pool is closed/);
  await counter.close();
  await running;
  await queued;
  await t.rejects(counter.count(big(60)), /pool is closed/);
  t.ok(await counter.count(REQUESTS['multi-turn']!), 'small conversations are still counted inline');
});

t.test(
  'a large conversation waiting for the workers to load when the counter closes is refused, not counted inline',
  async (t) => {
    const { counter, asked } = spiedCounter({ workers: 1, thresholdBytes: 50_000 });
    const waiting = counter.count(big(60));
    await counter.close();
    await t.rejects(waiting, /pool is closed/);
    t.equal(asked(), 0);
  },
);

t.test('with workers: 0 every conversation is counted inline', async (t) => {
  t.equal((await loopTurnsWhile(inline.count(big(60)))).turns, 0);
  await inline.warmUp?.();
  t.equal((await loopTurnsWhile(inline.count(big(60)))).turns, 0);
});

t.test('workers that cannot load are reported, and large conversations are still counted inline', async (t) => {
  const warnings: string[] = [];
  const counter = new InProcessCounter({
    source: 'local',
    exact: true,
    load: async () => LocalModel.load(resolveModelFiles({})),
    spec: {
      kind: 'local',
      files: { tokenizerJson: '/nonexistent/tokenizer.json', tokenizerConfig: '/nonexistent/tokenizer_config.json' },
    },
    workers: 1,
    workerIdleMs: 0,
    workerHeapMb: 0,
    thresholdBytes: 0,
    log: { warn: (_fields, message) => warnings.push(message) },
  });
  t.teardown(() => counter.close());
  await counter.warmUp();
  t.match(warnings, [/worker threads did not start/]);
  t.equal(await counter.count(REQUESTS.long!), await inline.count(REQUESTS.long!));
});

t.test('an error in a worker reaches the caller as the same GatewayError as inline', async (t) => {
  const broken: ChatRequest = {
    model: 'qwen3-8b',
    messages: [
      { role: 'user', content: 'x' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: 'not json' } }],
      },
    ],
  };
  const error = await pooled.count(broken).catch((e: unknown) => e);
  t.ok(error instanceof GatewayError);
  t.match(error, {
    code: 'GW_ERR_REQUEST_INVALID',
    status: 400,
    param: 'messages',
    message: /^messages\[1\]\.tool_calls\[0\]\.function\.arguments is not valid JSON/,
  });
  t.same(error, await inline.count(broken).catch((e: unknown) => e));
  t.equal(await pooled.count(REQUESTS.tools!), await inline.count(REQUESTS.tools!), 'the worker goes on counting');
});

t.test('a count aborted while it waits for a worker is dropped', async (t) => {
  // Both workers busy, so the third count waits in the queue.
  const busy = [pooled.count(big(300)), pooled.count(big(300))];
  const controller = new AbortController();
  const waiting = pooled.count(big(300), controller.signal);
  controller.abort(new Error('client went away'));
  await t.rejects(waiting, /client went away/);
  t.ok((await Promise.all(busy)).every((count) => count > 0));
});

t.test('the pool starts one worker, and adds one only when a count has to wait for a busy one', async (t) => {
  const pool = await WorkerPool.start(
    { kind: 'local', files: resolveModelFiles({}) },
    { size: 2, idleMs: 0, heapMb: 0 },
  );
  t.teardown(() => pool.close());
  const json = (request: ChatRequest): string => JSON.stringify(promptInput(request));
  t.equal(pool.workers, 1, 'started: one copy of the model');
  t.ok((await pool.count(json(big(60)))) > 0);
  t.equal(pool.workers, 1, 'one count at a time: still one');
  const both = [pool.count(json(big(300))), pool.count(json(big(300)))];
  t.equal(pool.workers, 2, 'the second count waits: a second worker starts');
  const third = pool.count(json(big(60)));
  t.equal(pool.workers, 2, 'never more than the size');
  t.ok((await Promise.all([...both, third])).every((count) => count > 0));
});

t.test('tiktoken counts in the pool as inline', async (t) => {
  const tiktokenInline = await createTokenCounter(tokenizerConfig({ source: 'tiktoken' }), context);
  const tiktokenPool = await createTokenCounter(
    tokenizerConfig({ source: 'tiktoken', workers: 1, worker_threshold_bytes: 0 }),
    context,
  );
  await tiktokenPool.warmUp?.();
  t.teardown(async () => {
    await tiktokenInline.close();
    await tiktokenPool.close();
  });
  for (const name of ['tool calls and results', 'multilingual', 'long']) {
    t.equal(await tiktokenPool.count(REQUESTS[name]!), await tiktokenInline.count(REQUESTS[name]!), name);
  }
});

t.test('a worker idle for worker_idle_ms ends, and the next large count starts one again', async (t) => {
  let retired!: () => void;
  let ended = new Promise<void>((resolve) => (retired = resolve));
  const pool = await WorkerPool.start(
    { kind: 'local', files: resolveModelFiles({}) },
    { size: 1, idleMs: 1, heapMb: 0, retired: () => retired() },
  );
  // The pool's timer and idle worker never hold a process open: this test does, while it waits.
  const open = setInterval(() => {}, 60_000);
  t.teardown(async () => {
    clearInterval(open);
    await pool.close();
  });
  const json = JSON.stringify(promptInput(big(60)));
  const counted = await pool.count(json);
  await ended;
  t.equal(pool.workers, 0, 'the idle worker ended: no copy of the model held');
  ended = new Promise<void>((resolve) => (retired = resolve));
  t.equal(await pool.count(json), counted, 'a new worker counts the same');
  await ended;
  t.equal(pool.workers, 0);
});

t.test('a worker given a count before its idle time is up is kept', async (t) => {
  const retired: number[] = [];
  const pool = await WorkerPool.start(
    { kind: 'local', files: resolveModelFiles({}) },
    { size: 1, idleMs: 60_000, heapMb: 0, retired: () => retired.push(1) },
  );
  t.teardown(() => pool.close());
  const json = JSON.stringify(promptInput(big(60)));
  for (let round = 0; round < 3; round++) t.ok((await pool.count(json)) > 0);
  t.equal(pool.workers, 1);
  t.same(retired, []);
});

t.test(
  "a conversation whose count outgrows a worker's heap is refused as the request's fault, and the pool counts on",
  async (t) => {
    const counter = new InProcessCounter({
      source: 'local',
      exact: true,
      load: async () => LocalModel.load(resolveModelFiles({})),
      spec: { kind: 'local', files: resolveModelFiles({}) },
      workers: 1,
      workerIdleMs: 0,
      // Enough to load Qwen3 and count a few MB of prose; not a 4 MB conversation.
      workerHeapMb: 128,
      thresholdBytes: 0,
      log: undefined,
    });
    t.teardown(() => counter.close());
    const huge = big(4096);
    const error = await counter.count(huge).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    t.ok(error instanceof GatewayError, 'a GatewayError');
    t.equal((error as GatewayError).code, 'GW_ERR_REQUEST_INVALID', 'the request is at fault: a 400');
    t.equal((error as GatewayError).param, 'messages');
    t.match((error as GatewayError).message, /too large to count/);
    t.ok((await counter.count(big(60))) > 0, 'a new worker counts the next conversation');
  },
);
