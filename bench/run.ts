// `npm run bench`: starts the sim, two bare pass-throughs and the gateways (plain, and with the full plugin chain, its
// rate-limit counters in process or in a redis-server), measures them side by side with interleaved repeats (the plain
// gateway on each of its dialects' paths), prints the tables and writes bench/results/latest.json and latest.svg.
// BENCH_TARGETS runs a subset.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chartSvg } from './chart.js';
import { runCell, warmUp, type CellResult, type LoadOptions } from './load.js';
import { machineInfo } from './machine.js';
import { stopAll } from './processes.js';
import { rotate } from './rotate.js';
import { DIALECT_PATHS, SCENARIOS } from './scenarios.js';
import { judge, summarize, unjudgedRatios, upstreamLegChoice } from './summary.js';
import { matrixTable, ratioTable, ttfbTable, verdictLines } from './table.js';
import {
  FULL_CHAIN_PLUGINS,
  selectTargets,
  startTargets,
  TARGET_ABOUT,
  targetUrl,
  type TargetName,
} from './targets.js';
import { measureTtfb, TTFB_SCENARIO, type TtfbResult } from './ttfb.js';
import { verifyTarget, type Check } from './verify.js';

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');
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
}

function readOptions(env: NodeJS.ProcessEnv): BenchOptions {
  const whole = (name: string, fallback: number): number => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isInteger(value) || value <= 0)
      throw new Error(`${name} must be a whole number above 0, not '${env[name]}'`);
    return value;
  };
  return {
    durationS: whole('BENCH_DURATION', 5),
    repeats: whole('BENCH_REPEATS', 3),
    connections: whole('BENCH_CONNECTIONS', 64),
    warmUpS: whole('BENCH_WARMUP', 1),
    ttfbSamples: whole('BENCH_TTFB_SAMPLES', 400),
    gatewayLog: env.BENCH_GATEWAY_LOG || undefined,
    targets: [...selectTargets(env.BENCH_TARGETS)],
    fullChain: env.BENCH_FULL_CHAIN
      ? env.BENCH_FULL_CHAIN.split(',')
          .map((name) => name.trim())
          .filter(Boolean)
      : [...FULL_CHAIN_PLUGINS],
  };
}

async function main(): Promise<void> {
  const options = readOptions(process.env);
  const started = Date.now();
  const log = (text: string): void =>
    console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}`);
  const {
    sim,
    list: targets,
    processes: servers,
    notes,
  } = await startTargets({
    only: new Set(options.targets),
    fullChain: options.fullChain,
    ...(options.gatewayLog !== undefined ? { gatewayLog: options.gatewayLog } : {}),
  });
  log(
    `started: ${targets.map((target) => `${target.name} pid ${target.server.pid} ${targetUrl(target)}${target.redis !== undefined ? ` (redis-server pid ${target.redis.pid})` : ''}`).join(', ')}`,
  );
  if (!targets.some((target) => target.name === 'http-proxy-3'))
    notes.push('http-proxy-3 not run (BENCH_TARGETS): no CPU ratio and no CPU verdict');
  for (const note of notes) log(`NOTE ${note}`);
  const chatTargets = targets.filter((target) => target.dialect === 'chat');

  const checks: Check[] = [];
  for (const target of targets) for (const scenario of SCENARIOS) checks.push(await verifyTarget(target, scenario));
  for (const check of checks)
    log(`check ${check.ok ? 'ok  ' : 'FAIL'} ${check.target} ${check.scenario}: ${check.detail}`);

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
  const rssAtEnd = Object.fromEntries(servers.map((server) => [server.name, server.rssMb()]));

  const scenarioNames = SCENARIOS.map((scenario) => scenario.name);
  const targetNames = targets.map((target) => target.name);
  const rows = summarize(cells);
  const verdicts = judge(rows, ttfb, scenarioNames);
  const unjudged = unjudgedRatios(rows, scenarioNames, ['gateway-responses']);
  const legChoice = upstreamLegChoice(
    rows,
    SCENARIOS.filter((scenario) => scenario.stream).map((scenario) => scenario.name),
  );
  const machine = machineInfo();
  const settings = `${options.connections} connections, ${options.durationS} s x ${options.repeats} repeats per cell (medians shown), ${machine.cpus} CPUs, node ${machine.node}`;

  console.log(`\n== Load: ${settings}\n`);
  console.log(matrixTable(rows, scenarioNames, targetNames));
  console.log('\n== Ratios\n');
  console.log(ratioTable(rows, scenarioNames));
  console.log(
    `\n== Time to first body byte (chat path; ${TTFB_SCENARIO.about}); added = target p50/p99 minus direct p50/p99\n`,
  );
  console.log(ttfbTable(ttfb));
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
      ...(target.redis !== undefined ? { redisPid: target.redis.pid } : {}),
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
    rssAtEndMb: rssAtEnd,
    cells,
  };
  writeFileSync(join(RESULTS_DIR, 'latest.json'), JSON.stringify(report, null, 2) + '\n');
  writeFileSync(
    join(RESULTS_DIR, 'latest.svg'),
    chartSvg(rows, ttfb, scenarioNames, targetNames, `${report.date}: ${settings}`),
  );
  log(`wrote ${join(RESULTS_DIR, 'latest.json')} and latest.svg`);
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
