// `npm run bench:routing` (issue #31): does routing by conversation keep the replicas' prefix caches warm? Three sim
// replicas play vLLM with its prefix cache and a prefill cost (the TTFT grows with the prompt tokens not cached), each
// in its own process; for each run of BENCH_RUNS a fresh set of them and one gateway (the default plugin chain, an
// API key) with that `upstream.routing`, then the same workload (routing-workload.ts): concurrent multi-turn
// conversations with long system prompts, streamed. One replica is killed (SIGKILL) mid-run and started again on its
// port BENCH_DOWN_MS later, with an empty cache as a restarted server has; the client retries nothing. Prints per run
// the requests, the failed ones, the bound on them (the requests in flight on the replica when it was killed), the
// time to first token p50 and p99, and the cache-hit rate (cached prompt tokens / prompt tokens over every request);
// then whether affinity beat round-robin on both.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { firstTokenMs } from '../sim/first-token.js';
import { freePort, startServer, stopAll, type ServerProcess } from './processes.js';
import { runConversations, type AffinityKey, type TurnResult, type Workload } from './routing-workload.js';
import { quantile } from './stats.js';
import { createBenchOrg, fullChainConfig, FULL_CHAIN_PLUGINS, GATEWAY_BIN, GATEWAY_MODEL } from './targets.js';
import { wholeSetting } from './whole-setting.js';

/** `upstream.routing`; `default`: the key left out (the gateway's own default). */
const ROUTINGS = ['round_robin', 'affinity', 'least_outstanding', 'default'] as const;
type Routing = (typeof ROUTINGS)[number];
const KEYS: readonly AffinityKey[] = ['none', 'header', 'prompt_cache_key'];

interface RunSpec {
  routing: Routing;
  key: AffinityKey;
}

interface RunResult extends RunSpec {
  turns: TurnResult[];
  /** Chat requests in flight on the replica when it was killed (read from it just before); undefined: no kill. */
  inFlightAtKill?: number;
}

const env = process.env;
const whole = (name: string, fallback: number, minimum = 1): number => wholeSetting(env, name, fallback, minimum);
const REPLICAS = whole('BENCH_REPLICAS', 3, 2);
const VICTIM = 1;
const workloadOf = (key: AffinityKey): Workload => ({
  conversations: whole('BENCH_CONVERSATIONS', 24),
  turns: whole('BENCH_TURNS', 8),
  systemWords: whole('BENCH_SYSTEM_TOKENS', 2000),
  userWords: whole('BENCH_USER_TOKENS', 150),
  thinkMs: whole('BENCH_THINK_MS', 1200, 0),
  key,
});
const SIM = {
  ttftMs: whole('BENCH_TTFT_MS', 5, 0),
  prefillUsPerToken: whole('BENCH_PREFILL_US', 50, 0),
  itlMs: whole('BENCH_ITL_MS', 2, 0),
  outputTokens: whole('BENCH_OUTPUT_TOKENS', 32),
};
/** When the replica is killed, from the first request (0: never), and how long it stays down. */
const KILL_AT_MS = whole('BENCH_KILL_AT_MS', 4000, 0);
const DOWN_MS = whole('BENCH_DOWN_MS', 3000, 0);
/** upstream.affinity_load_bound, when set (else the gateway's default). */
const LOAD_BOUND = env.BENCH_AFFINITY_LOAD_BOUND || undefined;
const RUNS = parseRuns(env.BENCH_RUNS || 'round_robin,affinity,affinity:header');

/** `routing[:key]`, comma-separated. */
function parseRuns(text: string): RunSpec[] {
  return text.split(',').map((item) => {
    const [routing = '', key = 'none'] = item.trim().split(':');
    if (!(ROUTINGS as readonly string[]).includes(routing))
      throw new Error(`BENCH_RUNS: '${routing}' is not one of ${ROUTINGS.join(', ')}`);
    if (!(KEYS as readonly string[]).includes(key))
      throw new Error(`BENCH_RUNS: the key '${key}' is not one of ${KEYS.join(', ')}`);
    return { routing: routing as Routing, key: key as AffinityKey };
  });
}

const startedAt = performance.now();
/** Progress, on stderr: the table alone goes to stdout. */
function progress(text: string): void {
  console.error(`[${((performance.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${text}`);
}

const dir = mkdtempSync(join(tmpdir(), 'bench-routing-'));
const simConfig = join(dir, 'sim.yaml');
writeFileSync(
  simConfig,
  `sim:\n  ttft_ms: ${SIM.ttftMs}\n  prefill_us_per_token: ${SIM.prefillUsPerToken}\n  itl_ms: ${SIM.itlMs}\n  output_tokens: ${SIM.outputTokens}\n`,
);

function startReplica(index: number, port: number): Promise<ServerProcess> {
  return startServer({
    name: `sim-${index}`,
    args: [GATEWAY_BIN, 'sim', '--config', simConfig, '--host', '127.0.0.1', '--port', String(port)],
    port,
  });
}

/** The gateway of one run, in front of the replicas, and the API key of its bench organization. */
async function startGateway(
  spec: RunSpec,
  replicas: readonly ServerProcess[],
  run: number,
): Promise<{ gateway: ServerProcess; key: string }> {
  const dataDir = mkdtempSync(join(dir, `run-${run}-`));
  const key = await createBenchOrg({ dataDir });
  const file = join(dataDir, 'gateway.yaml');
  const routing = spec.routing === 'default' ? '' : `  routing: ${spec.routing}\n`;
  const bound = LOAD_BOUND === undefined ? '' : `  affinity_load_bound: ${Number(LOAD_BOUND)}\n`;
  writeFileSync(file, fullChainConfig(FULL_CHAIN_PLUGINS, routing + bound));
  const port = await freePort();
  const gateway = await startServer({
    name: `gateway (${spec.routing})`,
    args: [GATEWAY_BIN, 'start', '--config', file],
    env: {
      GATEWAY_PORT: String(port),
      GATEWAY_UPSTREAM_URL: replicas.map((replica) => `${replica.url}/v1`).join(','),
      GATEWAY_LOG_LEVEL: 'warn',
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_REDIS_URL: '',
      GATEWAY_WORKERS: '1',
    },
    port,
    ...(env.BENCH_GATEWAY_LOG ? { stdoutFile: env.BENCH_GATEWAY_LOG } : {}),
  });
  return { gateway, key };
}

async function inFlight(replica: ServerProcess): Promise<number> {
  const stats = (await (await fetch(`${replica.url}/sim/stats`)).json()) as { inFlight: number };
  return stats.inFlight;
}

/** Kills the victim KILL_AT_MS after the start, starts it again DOWN_MS later; its in-flight requests at the kill. */
async function killAndRevive(replicas: ServerProcess[], ports: readonly number[]): Promise<number> {
  await sleep(KILL_AT_MS);
  const victim = replicas[VICTIM]!;
  const bound = await inFlight(victim);
  process.kill(victim.pid, 'SIGKILL');
  progress(`replica ${VICTIM} killed, ${bound} requests in flight on it`);
  await victim.stop(); // reaps it
  await sleep(DOWN_MS);
  replicas[VICTIM] = await startReplica(VICTIM, ports[VICTIM]!);
  progress(`replica ${VICTIM} listening again`);
  return bound;
}

async function runOnce(spec: RunSpec, run: number): Promise<RunResult> {
  const ports = await Promise.all(Array.from({ length: REPLICAS }, () => freePort()));
  const replicas = await Promise.all(ports.map((port, index) => startReplica(index, port)));
  progress(`${labelOf(spec)}: ${REPLICAS} replicas listening`);
  try {
    const { gateway, key } = await startGateway(spec, replicas, run);
    progress(`${labelOf(spec)}: gateway listening, the conversations start`);
    const turns: TurnResult[] = [];
    const killing = KILL_AT_MS > 0 ? killAndRevive(replicas, ports) : Promise.resolve(undefined);
    await runConversations(
      `${gateway.url}/v1/chat/completions`,
      // An OpenAI client's wire (docs/wire.md): chunks end with `data: [DONE]`, which tells a whole answer.
      { authorization: `Bearer ${key}`, 'x-gateway-wire': 'openai' },
      GATEWAY_MODEL,
      workloadOf(spec.key),
      (turn) => turns.push(turn),
    );
    const inFlightAtKill = await killing;
    const cpu = [gateway, ...replicas].map((one) => `${one.name} ${(one.cpuMs() / 1000).toFixed(1)}`).join(', ');
    progress(`${labelOf(spec)}: ${turns.length} turns done; CPU seconds: ${cpu}`);
    await gateway.stop();
    return { ...spec, turns, ...(inFlightAtKill !== undefined ? { inFlightAtKill } : {}) };
  } finally {
    await Promise.all(replicas.map((replica) => replica.stop()));
  }
}

interface Row {
  label: string;
  requests: number;
  failed: number;
  bound: string;
  p50: number;
  p99: number;
  /** The sims' own TTFT by their rule (first-token.ts), from each answer's usage: the routing's effect without the machine's noise. */
  modelP50: number;
  hitRate: number;
  promptTokens: number;
}

function rowOf(result: RunResult): Row {
  const ok = result.turns.filter((turn) => turn.ok);
  const ttfts = ok.map((turn) => turn.ttftMs).filter((ms) => Number.isFinite(ms));
  const modelled = ok.map((turn) => firstTokenMs(SIM, turn.promptTokens, turn.cachedTokens));
  const prompt = ok.reduce((sum, turn) => sum + turn.promptTokens, 0);
  const cached = ok.reduce((sum, turn) => sum + turn.cachedTokens, 0);
  return {
    label: labelOf(result),
    requests: result.turns.length,
    failed: result.turns.length - ok.length,
    bound: result.inFlightAtKill === undefined ? '-' : String(result.inFlightAtKill),
    p50: quantile(ttfts, 0.5),
    p99: quantile(ttfts, 0.99),
    modelP50: quantile(modelled, 0.5),
    hitRate: prompt > 0 ? cached / prompt : Number.NaN,
    promptTokens: ok.length > 0 ? prompt / ok.length : Number.NaN,
  };
}

function labelOf(spec: RunSpec): string {
  return spec.key === 'none' ? spec.routing : `${spec.routing}:${spec.key}`;
}

function printTable(rows: readonly Row[]): void {
  const cells = (values: string[]): string =>
    values.map((value, i) => (i === 0 ? value.padEnd(26) : value.padStart(10))).join(' ');
  console.log(
    cells(['mode', 'requests', 'failed', 'in flight', 'TTFT p50', 'TTFT p99', 'sim TTFT', 'cache hit', 'prompt']),
  );
  console.log(cells(['', '', '', 'at kill', 'ms', 'ms', 'p50 ms', '%', 'tokens']));
  for (const row of rows)
    console.log(
      cells([
        row.label,
        String(row.requests),
        String(row.failed),
        row.bound,
        row.p50.toFixed(1),
        row.p99.toFixed(1),
        row.modelP50.toFixed(1),
        (row.hitRate * 100).toFixed(1),
        row.promptTokens.toFixed(0),
      ]),
    );
}

/** Affinity against round-robin (each one's first run without a key), and every run's failures against their bound. */
function verdict(rows: readonly Row[], results: readonly RunResult[]): boolean {
  let pass = true;
  const roundRobin = rows.find((row) => row.label === 'round_robin');
  const affinity = rows.find((row) => row.label === 'affinity') ?? rows.find((row) => row.label.startsWith('affinity'));
  if (roundRobin === undefined || affinity === undefined) {
    console.log('verdict: none (it needs a round_robin run and an affinity run)');
  } else {
    const hits = affinity.hitRate > roundRobin.hitRate;
    const faster = affinity.p50 < roundRobin.p50;
    pass = hits && faster;
    console.log(
      `verdict: ${pass ? 'PASS' : 'FAIL'}: ${affinity.label} cache-hit ${(affinity.hitRate * 100).toFixed(1)}% ${hits ? '>' : '<='} ` +
        `round_robin ${(roundRobin.hitRate * 100).toFixed(1)}%, TTFT p50 ${affinity.p50.toFixed(1)} ms ${faster ? '<' : '>='} ` +
        `${roundRobin.p50.toFixed(1)} ms`,
    );
  }
  for (const [i, row] of rows.entries()) {
    const bound = results[i]?.inFlightAtKill;
    if (bound === undefined || row.failed <= bound) continue;
    pass = false;
    console.log(
      `verdict: FAIL: ${row.label} failed ${row.failed} requests, more than the ${bound} in flight at the kill`,
    );
  }
  return pass;
}

async function main(): Promise<void> {
  const workload = workloadOf('none');
  console.log(
    `${REPLICAS} sim replicas (vLLM, prefix cache; TTFT ${SIM.ttftMs} ms + ${SIM.prefillUsPerToken} µs per uncached prompt token, ` +
      `${SIM.outputTokens} tokens ${SIM.itlMs} ms apart); ${workload.conversations} conversations × ${workload.turns} turns, ` +
      `system prompt ~${workload.systemWords} tokens, user messages ~${workload.userWords}, ~${workload.thinkMs} ms between turns; ` +
      (KILL_AT_MS > 0
        ? `replica ${VICTIM} killed ${KILL_AT_MS} ms in, started again ${DOWN_MS} ms later`
        : 'no replica killed'),
  );
  const results: RunResult[] = [];
  for (const [run, spec] of RUNS.entries()) {
    const result = await runOnce(spec, run);
    results.push(result);
    for (const turn of result.turns.filter((one) => !one.ok).slice(0, 3))
      console.log(`  ${labelOf(spec)}: conversation ${turn.conversation} turn ${turn.turn} failed: ${turn.failure}`);
  }
  console.log('');
  const rows = results.map(rowOf);
  printTable(rows);
  console.log(
    'failed: requests that got no complete answer; the client retries nothing. The bound is the requests in flight on ' +
      'the killed replica at that moment (their streams break); the gateway retries a connection refused elsewhere.',
  );
  if (!verdict(rows, results)) process.exitCode = 1;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stopAll().finally(() => process.exit(130));
  });
}

await main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
