// What the gateway learns about its upstream at start and decides from it (bin/upstream-discovery.ts):
// the flavor (configured, or detected, else vllm, with a warning where they disagree), the context one
// request may use (bounded by llama-server's slots), the connections per replica, the cache isolation.
import { Writable } from 'node:stream';
import { pino } from 'pino';
import t from 'tap';
import { discoverUpstream, type UpstreamFacts } from '../../../bin/upstream-discovery.js';
import { loadConfig } from '../../../config/load.js';
import type { GatewayConfig } from '../../../config/types.js';
import { startInferenceServer, type FakeOptions, type ServerKind } from '../../fakes/inference-servers.js';

type Entry = { level: number; msg: string } & Record<string, unknown>;
const WARN = 40;

interface Overrides {
  upstream?: Partial<GatewayConfig['upstream']>;
  model?: Partial<GatewayConfig['model']>;
  tokenizer?: Partial<GatewayConfig['tokenizer']>;
}

function configWith(overrides: Overrides): GatewayConfig {
  const config = loadConfig(undefined, {}).config;
  return {
    ...config,
    upstream: { ...config.upstream, ...overrides.upstream },
    model: { ...config.model, ...overrides.model },
    tokenizer: { ...config.tokenizer, ...overrides.tokenizer },
  };
}

async function discover(
  kind: ServerKind | undefined,
  overrides: Overrides = {},
  fakeOptions: FakeOptions = {},
): Promise<{ facts: UpstreamFacts; logs: Entry[] }> {
  const fake = kind === undefined ? undefined : await startInferenceServer(kind, fakeOptions);
  const logs: Entry[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        logs.push(JSON.parse(chunk.toString('utf8')) as Entry);
        callback();
      },
    }),
  );
  try {
    const facts = await discoverUpstream(
      configWith(overrides),
      fake?.baseUrl ?? 'http://127.0.0.1:9/v1',
      undefined,
      log,
    );
    return { facts, logs };
  } finally {
    await fake?.close();
  }
}

const warnings = (logs: Entry[]): string[] => logs.filter((entry) => entry.level >= WARN).map((entry) => entry.msg);

t.test('upstream.flavor unset: the flavor the upstream shows is used, and logged with its evidence', async (t) => {
  const { facts, logs } = await discover('llama-server');
  t.equal(facts.flavor, 'llama-server');
  t.match(
    logs.find((entry) => entry.evidence !== undefined),
    {
      msg: 'upstream flavor as the upstream shows it',
      flavor: 'llama-server',
      evidence: 'GET /props',
    },
  );
});

t.test('upstream.flavor unset and nothing recognised (upstream down at start): vllm, with a warning', async (t) => {
  const { facts, logs } = await discover(undefined);
  t.equal(facts.flavor, 'vllm');
  t.match(warnings(logs), [/did not show its kind.*flavor vllm; set upstream.flavor/]);
});

t.test(
  'a configured flavor the upstream contradicts is used, with a warning naming both and what breaks',
  async (t) => {
    const { facts, logs } = await discover(
      'llama-server',
      { upstream: { flavor: 'openai' } },
      { context: 4096, slots: 1 },
    );
    t.equal(facts.flavor, 'openai', "the operator's choice stands");
    const warning = logs.find((entry) => entry.detected !== undefined);
    t.match(warning, { level: WARN, flavor: 'openai', detected: 'llama-server', evidence: 'GET /props' });
    t.match(warning?.msg, /upstream.flavor is openai but the upstream is llama-server \(GET \/props\)/);
    t.match(
      warning?.msg,
      /the thinking switch is never sent \(llama-server reads chat_template_kwargs.enable_thinking\)/,
    );
    t.match(warning?.msg, /the model context is read from GET \/props \(n_ctx\)/);
    t.match(warning?.msg, /Set upstream.flavor: llama-server, or leave it unset/);
  },
);

t.test(
  'vllm configured in front of llama-server: its cache_salt would be ignored, so the cache is not trusted',
  async (t) => {
    const { facts, logs } = await discover('llama-server', { upstream: { flavor: 'vllm' } }, { slots: 1 });
    t.equal(facts.cacheIsolation, 'off');
    t.match(warnings(logs).join('\n'), /llama-server ignores cache isolation per_org/);
    t.match(warnings(logs).join('\n'), /cache_isolation per_org does not work on llama-server/);
  },
);

t.test('a configured flavor the upstream confirms says nothing more', async (t) => {
  const { facts, logs } = await discover('vllm', { upstream: { flavor: 'vllm' } }, { context: 40960 });
  t.equal(facts.flavor, 'vllm');
  t.same(warnings(logs), []);
  t.match(facts, { contextTokens: 40960, usageCeiling: 40960, connections: 1024, cacheIsolation: 'per_org' });
});

t.test(
  "regression: four concurrent answers died at ~1024 tokens while 4096 were accepted: a request gets n_ctx / total_slots of llama-server's shared KV cache",
  async (t) => {
    const { facts, logs } = await discover('llama-server', {}, { context: 4096, slots: 4 });
    t.equal(facts.contextTokens, 1024, 'max_tokens and the model list are bounded by a slot’s share');
    t.equal(facts.usageCeiling, 4096, 'a request alone may still reach the whole pool: its usage is not replaced');
    const line = logs.find((entry) => entry.total_slots === 4 && entry.n_ctx === 4096);
    t.match(line, { level: WARN, max_context_tokens: 1024 });
    t.match(line?.msg, /shared by its 4 slots/);
    t.match(line?.msg, /-c 16384/);
    t.match(line?.msg, /--no-kv-unified/);
    t.match(line?.msg, /model.max_context_tokens/);
  },
);

t.test('model.max_context_tokens set: the operator’s context, whatever the slots', async (t) => {
  const { facts } = await discover(
    'llama-server',
    { model: { max_context_tokens: 4096 } },
    { context: 4096, slots: 4 },
  );
  t.match(facts, { contextTokens: 4096, usageCeiling: 4096 });
});

t.test('a single llama-server slot has the whole context', async (t) => {
  const { facts } = await discover('llama-server', {}, { context: 8192, slots: 1 });
  t.match(facts, { contextTokens: 8192, usageCeiling: 8192 });
});

t.test(
  'upstream.connections unset: 4 per llama-server slot, logged; 1024 elsewhere; the config always wins',
  async (t) => {
    const llama = await discover('llama-server', {}, { slots: 4 });
    t.equal(llama.facts.connections, 16);
    t.match(
      llama.logs.find((entry) => entry.connections !== undefined),
      { connections: 16, total_slots: 4 },
    );
    t.equal((await discover('sglang')).facts.connections, 1024);
    t.equal((await discover('llama-server', { upstream: { connections: 64 } }, { slots: 4 })).facts.connections, 64);
  },
);

t.test(
  'cache isolation: per_org on vLLM and SGLang by default, off on llama-server (logged), no_reuse when asked',
  async (t) => {
    t.equal((await discover('sglang')).facts.cacheIsolation, 'per_org');
    const llama = await discover('llama-server', {}, { slots: 1 });
    t.equal(llama.facts.cacheIsolation, 'off');
    t.match(
      llama.logs.find((entry) => entry.cache_isolation !== undefined),
      { cache_isolation: 'off', msg: /shared between organizations.*no_reuse isolates it/ },
    );
    const asked = await discover('llama-server', { upstream: { cache_isolation: 'no_reuse' } }, { slots: 1 });
    t.equal(asked.facts.cacheIsolation, 'no_reuse');
    const refused = await discover('tgi', { upstream: { cache_isolation: 'per_org' } });
    t.equal(refused.facts.cacheIsolation, 'off');
    t.match(warnings(refused.logs), [/per_org does not work on tgi/]);
  },
);
