// The in-process token counter loads its model when a count first needs it, not at start (issue #13:
// a gateway whose requests never count should not hold ~130 MB), while a bad config still fails at start.
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { LocalModel } from '../../../prompt/local-model.js';
import { resolveModelFiles } from '../../../prompt/model-files.js';
import { InProcessCounter } from '../../../tokenizer/in-process-counter.js';
import type { PromptModel } from '../../../tokenizer/prompt-model.js';
import { createTokenCounter } from '../../../tokenizer/token-counter.js';
import { REQUESTS, SERVED_MODEL, rejection, tokenizerConfig } from './sample-requests.js';

const context = { upstreamUrls: [], servedModel: SERVED_MODEL };
const qwen3 = resolveModelFiles({});

/** A counter (no workers) whose loads are counted; `load` is what each load gives. */
function countedLoads(load: () => Promise<PromptModel>): {
  counter: InProcessCounter;
  loads: () => number;
  warnings: string[];
} {
  let loads = 0;
  const warnings: string[] = [];
  const counter = new InProcessCounter({
    source: 'local',
    exact: true,
    load: () => (loads++, load()),
    spec: { kind: 'local', files: qwen3 },
    workers: 0,
    workerIdleMs: 0,
    workerHeapMb: 0,
    thresholdBytes: 16_384,
    log: { warn: (_fields, message) => warnings.push(message) },
  });
  return { counter, loads: () => loads, warnings };
}

/** A folder with Qwen3's tokenizer_config.json (a valid chat template) beside `tokenizerJson` as tokenizer.json. */
function modelFolder(tokenizerJson: string): { tokenizer_json: string; tokenizer_config: string } {
  const dir = mkdtempSync(join(tmpdir(), 'tokenizer-lazy-'));
  writeFileSync(join(dir, 'tokenizer.json'), tokenizerJson);
  copyFileSync(qwen3.tokenizerConfig, join(dir, 'tokenizer_config.json'));
  return { tokenizer_json: join(dir, 'tokenizer.json'), tokenizer_config: join(dir, 'tokenizer_config.json') };
}

t.test('the model loads when a conversation is first counted, not when the counter is made', async (t) => {
  const { counter, loads } = countedLoads(async () => LocalModel.load(qwen3));
  t.equal(loads(), 0, 'made: nothing loaded');
  t.ok((await counter.count(REQUESTS['one user message']!)) > 0);
  t.equal(loads(), 1, 'the first count loaded it');
  await counter.count(REQUESTS['multi-turn']!);
  t.equal(loads(), 1, 'later counts use the same model');
});

t.test('concurrent first counts share one load', async (t) => {
  let finish!: (model: PromptModel) => void;
  const { counter, loads } = countedLoads(() => new Promise((resolve) => (finish = resolve)));
  const counts = Object.values(REQUESTS).map((request) => counter.count(request));
  finish(LocalModel.load(qwen3));
  const answers = await Promise.all(counts);
  t.equal(loads(), 1);
  t.ok(answers.every((count) => count > 0));
});

t.test(
  'a model that cannot load makes every count a 500 that says so, logged once, and is not loaded again',
  async (t) => {
    const { counter, loads, warnings } = countedLoads(() =>
      Promise.reject(new Error('/models/tokenizer.json: Unexpected end of JSON input')),
    );
    for (const request of [REQUESTS['one user message']!, REQUESTS['system prompt']!]) {
      const error = await rejection(counter.count(request));
      t.equal(error.code, 'GW_ERR_INTERNAL');
      t.equal(error.status, 500);
      t.equal(error.message, "Counting tokens is unavailable: the gateway's tokenizer could not be loaded.");
      t.notMatch(error.message, /models|JSON/, "the loader's words and the paths stay in the log");
    }
    t.equal(loads(), 1);
    t.match(warnings, [/the tokenizer did not load/]);
  },
);

t.test('a tokenizer.json that is not a tokenizer passes the start and fails the first count, clearly', async (t) => {
  const counter = await createTokenCounter(tokenizerConfig({ local: modelFolder('{"model": {}}') }), context);
  t.teardown(() => counter.close());
  const error = await rejection(counter.count(REQUESTS['one user message']!));
  t.equal(error.code, 'GW_ERR_INTERNAL');
  t.match(error.message, /tokenizer could not be loaded/);
});

t.test('what can be checked cheaply still fails at start', async (t) => {
  const missing = modelFolder('{}');
  await t.rejects(
    createTokenCounter(
      tokenizerConfig({ local: { ...missing, tokenizer_json: join(missing.tokenizer_json, '..', 'gone.json') } }),
      context,
    ),
    /gone\.json is not a readable file/,
    'a tokenizer.json that is not there',
  );
  const dir = mkdtempSync(join(tmpdir(), 'tokenizer-lazy-'));
  writeFileSync(join(dir, 'broken.jinja'), '{% if messages %}no end');
  await t.rejects(
    createTokenCounter(tokenizerConfig({ local: { ...missing, chat_template: 'broken.jinja' } }), {
      ...context,
      baseDir: dir,
    }),
    /broken\.jinja: the chat template does not compile/,
    'a chat template that does not compile',
  );
  const noTemplate = modelFolder('{}');
  writeFileSync(noTemplate.tokenizer_config, '{"eos_token": "</s>"}');
  await t.rejects(
    createTokenCounter(tokenizerConfig({ local: noTemplate }), context),
    /has no chat_template/,
    'a tokenizer_config.json without a template',
  );
});

t.test('warmUp() loads the model now', async (t) => {
  const { counter, loads } = countedLoads(async () => LocalModel.load(qwen3));
  await counter.warmUp();
  t.equal(loads(), 1);
  await counter.count(REQUESTS['one user message']!);
  t.equal(loads(), 1);
});
