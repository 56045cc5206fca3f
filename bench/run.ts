// `npm run bench`: starts the sim, nginx, two bare Node pass-throughs, the gateways (plain, and with the default plugin
// chain, its rate-limit counters in process or in a redis-server) and Portkey, measures them side by side with
// interleaved repeats (the plain gateway on each of its dialects' paths), then the full chain's memory with 1,000 open
// streams; prints the tables and verdicts and writes bench/results/latest.json and latest.svg. BENCH_TARGETS runs a
// subset; --profile TARGET (or BENCH_PROFILE) writes a CPU profile of that target's process and summarizes it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chartSvg } from './chart.js';
import { measureFuzzMemory, type FuzzMemoryResult } from './fuzz-memory.js';
import { profileReport, profilesOf, summarizeProfile, type ProfileSummary } from './cpu-profile.js';
import { runCell, warmUp, type CellResult, type LoadOptions } from './load.js';
import { machineInfo } from './machine.js';
import { measureMemory, type MemoryResult } from './memory.js';
import { stopAll } from './processes.js';
import { rotate } from './rotate.js';
import { CHUNKS, DIALECT_PATHS, SCENARIOS } from './scenarios.js';
import { measureScrape, type ScrapeResult } from './scrape.js';
import { judge, summarize, unjudgedRatios, upstreamLegChoice } from './summary.js';
import { chunkTable, matrixTable, memoryTable, ratioTable, ttfbTable, verdictLines } from './table.js';
import {
  FULL_CHAIN_PLUGINS,
  isTargetName,
  processOf,
  selectTargets,
  startTargets,
  TARGET_ABOUT,
  targetUrl,
  unprofilable,
  type TargetName,
} from './targets.js';
import { measureTtfb, TTFB_SCENARIO, type TtfbResult } from './ttfb.js';
import { verifyTarget, type Check } from './verify.js';
import { wholeSetting } from './whole-setting.js';

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');
/** Where --profile writes (git ignores it). */
const PROFILE_DIR = join(RESULTS_DIR, 'profiles');
/** The target the memory pass measures. */
const MEMORY_TARGET: TargetName = 'gateway-full';
const TTFB_CONCURRENCIES = [1, 16];
/** Above this share of the CPUs taken by other processes in a cell, the report warns. */
const OTHER_WARN_PCT = 5;

interface BenchOptions extends LoadOptions {
  repeats: number;
  warmUpS: number;
  ttfbSamples: number;
  gatewayLog: string | undefined;
  /** BENCH_TARGETS: the targets to run (direct always). */
  targets: TargetName[];
  /** BENCH_FULL_CHAIN: the full-chain gateways' plugins, in order. */
  fullChain: string[];
  /** BENCH_PORTKEY_DIR: where @portkey-ai/gateway is installed. */
  portkeyDir: string | undefined;
  /** --profile or BENCH_PROFILE: the target whose process runs under the CPU profiler. */
  profile: TargetName | undefined;
  /** The memory pass (BENCH_MEMORY=0: not run; never with --profile, whose profile it would fill). */
  memory: boolean;
  /** BENCH_FUZZ_CASES: the fuzz cases of the memory-under-fuzz pass (0: not run; never with --profile). */
  fuzzCases: number;
  /** BENCH_FUZZ_SEED: the fuzz's seed, the same every run unless asked. */
  fuzzSeed: number;
}

/** Fuzz cases by default: about two minutes here (`BENCH_FUZZ_CASES=100000` for #30's full figure). */
const FUZZ_CASES = 20_000;

function readOptions(env: NodeJS.ProcessEnv, argv: string[]): BenchOptions {
  const whole = (name: string, fallback: number, minimum = 1): number => wholeSetting(env, name, fallback, minimum);
  const { values } = parseArgs({ args: argv, options: { profile: { type: 'string' } }, strict: true });
  const targets = [...selectTargets(env.BENCH_TARGETS)];
  const asked = values.profile ?? (env.BENCH_PROFILE || undefined);
  const profile = asked === undefined ? undefined : profiledTarget(asked, targets);
  return {
    durationS: whole('BENCH_DURATION', 5),
    repeats: whole('BENCH_REPEATS', 3),
    connections: whole('BENCH_CONNECTIONS', 64),
    warmUpS: whole('BENCH_WARMUP', 1),
    ttfbSamples: whole('BENCH_TTFB_SAMPLES', 400),
    gatewayLog: env.BENCH_GATEWAY_LOG || undefined,
    targets,
    fullChain: env.BENCH_FULL_CHAIN
      ? env.BENCH_FULL_CHAIN.split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : [...FULL_CHAIN_PLUGINS],
    portkeyDir: env.BENCH_PORTKEY_DIR || undefined,
    profile,
    memory: env.BENCH_MEMORY !== '0' && profile === undefined,
    fuzzCases: profile === undefined ? whole('BENCH_FUZZ_CASES', FUZZ_CASES, 0) : 0,
    fuzzSeed: whole('BENCH_FUZZ_SEED', 42, 0),
  };
}

/** The target --profile names, if it is one of the run's and a Node program. */
function profiledTarget(name: string, targets: readonly TargetName[]): TargetName {
  if (!isTargetName(name)) throw new Error(`--profile: no target '${name}'`);
  const why = unprofilable(name);
  if (why !== undefined) throw new Error(`--profile: ${why}`);
  if (!targets.includes(name)) throw new Error(`--profile: ${name} is not among BENCH_TARGETS`);
  return name;
}

async function main(): Promise<void> {
  const options = readOptions(process.env, process.argv.slice(2));
  const started = Date.now();
  const log = (text: string): void =>
    console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}`);
  if (options.profile !== undefined) mkdirSync(PROFILE_DIR, { recursive: true });
  const {
    sim,
    list: targets,
    processes: servers,
    notes,
    idleRssMb,
  } = await startTargets({
    only: new Set(options.targets),
    fullChain: options.fullChain,
    ...(options.gatewayLog !== undefined ? { gatewayLog: options.gatewayLog } : {}),
    ...(options.portkeyDir !== undefined ? { portkeyDir: options.portkeyDir } : {}),
    ...(options.profile !== undefined ? { profile: { target: options.profile, dir: PROFILE_DIR } } : {}),
  });
  log(
    `started: ${targets.map((target) => `${target.name} pid ${target.server.pid} ${targetUrl(target)}${(target.services ?? []).map((service) => ` (${service.name} pid ${service.pid})`).join('')}`).join(', ')}`,
  );
  if (!targets.some((target) => target.name === 'http-proxy-3'))
    notes.push('http-proxy-3 not run (BENCH_TARGETS): no CPU ratio and no CPU verdict');
  const profiled = servers.find(
    (server) => options.profile !== undefined && server.name === processOf(options.profile),
  );
  if (profiled !== undefined)
    notes.push(
      `${options.profile} runs under the CPU profiler (process ${profiled.name}, pid ${profiled.pid}, into ${PROFILE_DIR}): its CPU figures include the profiler's own cost; no memory pass`,
    );
  for (const note of notes) log(`NOTE ${note}`);
  const chatTargets = targets.filter((target) => target.dialect === 'chat');

  const checks: Check[] = [];
  for (const target of targets) for (const scenario of SCENARIOS) checks.push(await verifyTarget(target, scenario));
  for (const check of checks)
    log(`check ${check.ok ? 'ok  ' : 'FAIL'} ${check.target} ${check.scenario}: ${check.detail}`);

  // The load's span on the monotonic clock: the part of a CPU profile to summarize (not the process's start).
  const loadFromUs = monotonicUs();
  const warm = { ...options, durationS: options.warmUpS };
  for (const scenario of SCENARIOS) for (const target of targets) await warmUp(target, scenario, warm);
  log(`warmed up (${options.warmUpS} s per target and scenario)`);

  const cells: CellResult[] = [];
  for (let repeat = 0; repeat < options.repeats; repeat++) {
    for (const scenario of SCENARIOS) {
      for (const target of rotate(targets, repeat)) {
        const cell = await runCell(target, sim, scenario, options, repeat, servers);
        cells.push(cell);
        const failures = cell.errors + cell.non2xx + cell.timeouts;
        log(
          `repeat ${repeat + 1}/${options.repeats} ${scenario.name.padEnd(12)} ${target.name.padEnd(18)} ${cell.rps.toFixed(0).padStart(6)} req/s  p50 ${cell.p50Ms} ms  ${cell.cpuUsPerRequest.toFixed(1)} us/req  steal ${cell.stealPct.toFixed(0)}%  other ${cell.otherPct.toFixed(0)}%${failures > 0 ? `  ${failures} failed` : ''}`,
        );
      }
    }
  }

  const ttfb: TtfbResult[] = [];
  for (const concurrency of TTFB_CONCURRENCIES) {
    ttfb.push(...(await measureTtfb(chatTargets, { concurrency, samples: options.ttfbSamples, rounds: 8 })));
    log(`time to first byte measured at concurrency ${concurrency}`);
  }
  const loadToUs = monotonicUs();
  const rssAtEnd = Object.fromEntries(servers.map((server) => [server.name, server.rssMb()]));

  let memory: MemoryResult | undefined;
  const memoryTarget = targets.find((target) => target.name === MEMORY_TARGET);
  if (options.memory && memoryTarget !== undefined) {
    memory = await measureMemory(memoryTarget, idleRssMb[processOf(MEMORY_TARGET)] ?? Number.NaN);
    log(
      `memory pass: ${memory.target} ${memory.openMb.toFixed(0)} MB with ${memory.maxOpen} of ${memory.streams} streams open, ${memory.afterMb.toFixed(0)} MB after${memory.failed > 0 ? `, ${memory.failed} failed` : ''}`,
    );
  }

  const scrapes: ScrapeResult[] = [];
  for (const target of targets)
    if (target.metricsUrl !== undefined) {
      const scrape = await measureScrape({ ...target, metricsUrl: target.metricsUrl });
      scrapes.push(scrape);
      log(
        `metrics scrape: ${scrape.target} ${scrape.cpuUsPerScrape.toFixed(0)} us of CPU per GET /metrics (${scrape.samples} samples, ${(scrape.bytes / 1024).toFixed(0)} KiB; ${scrape.scrapes} scrapes)`,
      );
    }

  let fuzz: FuzzMemoryResult | undefined;
  if (options.fuzzCases > 0) {
    log(`memory under the fuzz: ${options.fuzzCases} cases (seed ${options.fuzzSeed}) against its own gateway`);
    fuzz = await measureFuzzMemory(options.fuzzCases, options.fuzzSeed);
    log(`fuzz: gateway RSS ${fuzz.beforeMb} MB before, ${fuzz.afterMb} MB after, ${fuzz.peakMb} MB at most`);
    if (fuzz.failed) log(`the fuzz reported failures:\n${fuzz.findings}`);
  } else {
    const note = 'the memory-under-fuzz pass was not run (BENCH_FUZZ_CASES=0 or --profile): no verdict on it';
    notes.push(note);
    log(`NOTE ${note}`);
  }

  const scenarioNames = SCENARIOS.map((scenario) => scenario.name);
  const targetNames = targets.map((target) => target.name);
  const rows = summarize(cells);
  const verdicts = judge(rows, { ttfb, memory, fuzz, scenarios: scenarioNames, chunks: CHUNKS });
  const unjudged = unjudgedRatios(rows, scenarioNames);
  const legChoice = upstreamLegChoice(
    rows,
    SCENARIOS.filter((scenario) => scenario.stream).map((scenario) => scenario.name),
    CHUNKS,
  );
  const machine = machineInfo();
  const settings = `${options.connections} connections, ${options.durationS} s x ${options.repeats} repeats per cell (medians shown), ${machine.cpus} CPUs, node ${machine.node}`;

  console.log(`\n== Load: ${settings}\n`);
  console.log(matrixTable(rows, scenarioNames, targetNames));
  console.log('\n== Ratios\n');
  console.log(ratioTable(rows, scenarioNames));
  console.log(
    `\n== CPU per chunk: (CPU us/req streamed - CPU us/req nonstream) / ${CHUNKS}, what a chunk costs over the request\n`,
  );
  console.log(chunkTable(rows, targetNames, CHUNKS));
  console.log(
    `\n== Time to first body byte (chat path; ${TTFB_SCENARIO.about}); added = target p50/p99 minus direct p50/p99; over http-proxy-3 = target p50 minus http-proxy-3's\n`,
  );
  console.log(ttfbTable(ttfb));
  console.log('\n== Resident memory (VmRSS)\n');
  console.log(memoryTable(idleRssMb, memory));
  console.log('\n== Upstream leg (bare pass-throughs, streaming)\n');
  console.log(legChoice.join('\n'));
  console.log('\n== Targets\n');
  console.log(verdictLines(verdicts, unjudged));
  for (const note of notes) console.log(`\nNOTE: ${note}.`);
  const busyRows = rows.filter((row) => row.maxOtherPct > OTHER_WARN_PCT);
  if (busyRows.length > 0)
    console.log(
      `\nWARNING: processes outside the bench took more than ${OTHER_WARN_PCT}% of the CPUs during ${busyRows.length} of ${rows.length} rows (column other %); their numbers are noisier than usual.`,
    );
  const failedChecks = checks.filter((check) => !check.ok);
  if (failedChecks.length > 0)
    console.log(
      `\nWARNING: ${failedChecks.length} response check(s) failed; the numbers above may not mean what they say.`,
    );

  // The profile is written as its process exits: stop them all first.
  let profile: ProfileSummary | undefined;
  if (profiled !== undefined) {
    await stopAll();
    const files = profilesOf(PROFILE_DIR, profiled.pid);
    if (files.length === 0) console.log(`\nWARNING: no CPU profile of pid ${profiled.pid} in ${PROFILE_DIR}.`);
    else {
      profile = summarizeProfile(files[0]!, { fromUs: loadFromUs, toUs: loadToUs });
      console.log(`\n== CPU profile of ${options.profile} (process ${profiled.name})\n`);
      console.log(profileReport(profile));
      if (files.length > 1) console.log(`\n(worker threads' profiles beside it: ${files.slice(1).join(', ')})`);
    }
  }

  mkdirSync(RESULTS_DIR, { recursive: true });
  const report = {
    date: new Date().toISOString(),
    machine,
    options: { ...options, ttfbConcurrencies: TTFB_CONCURRENCIES },
    targets: targets.map((target) => ({
      name: target.name,
      about: TARGET_ABOUT[target.name],
      model: target.model,
      dialect: target.dialect,
      path: DIALECT_PATHS[target.dialect],
      pid: target.server.pid,
      ...(target.services !== undefined ? { services: target.services.map(({ name, pid }) => ({ name, pid })) } : {}),
    })),
    skipped: notes,
    scenarios: SCENARIOS,
    ttfbScenario: TTFB_SCENARIO,
    checks,
    summary: rows,
    ttfb,
    verdicts,
    unjudged,
    upstreamLeg: legChoice,
    idleRssMb,
    memory,
    fuzz,
    scrapes,
    rssAtEndMb: rssAtEnd,
    profile,
    cells,
  };
  writeFileSync(join(RESULTS_DIR, 'latest.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(
    join(RESULTS_DIR, 'latest.svg'),
    chartSvg(rows, ttfb, scenarioNames, targetNames, `${report.date}: ${settings}`),
  );
  log(`wrote ${join(RESULTS_DIR, 'latest.json')} and latest.svg`);
}

/** process.hrtime's clock (CLOCK_MONOTONIC, the clock of V8's profile timestamps), microseconds. */
function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void stopAll().finally(() => process.exit(130));
  });
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
