// `npm run fuzz`: starts a gateway (default config + the fuzz YAML, embedded sim, its own temp data
// directory) as a child process, sends it the seeded fuzzer's requests, and prints the statuses per route,
// the findings, the first failures with their replay command, the gateway's memory and the rate.
//   npm run fuzz -- [--seed N] [--count N] [--concurrency N] [--from N] [--verbose]
// FUZZ_SEED, FUZZ_COUNT and FUZZ_CONCURRENCY do the same. Exit status 1 when anything failed.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.js';
import { openStore } from '../store/store.js';
import { runCampaign, type JudgedCase } from './campaign.js';
import { checkBooks, checkCorpus, checkHealth, checkLedger } from './checks.js';
import { createFuzzOrgs } from './fuzz-orgs.js';
import { FUZZ_GATEWAY_YAML } from './gateway-config.js';
import { startGatewayChild } from './gateway-process.js';
import { classesTable, describeFailure, statusTable, summaryLine } from './report.js';

interface RunOptions {
  seed: number;
  count: number;
  concurrency: number;
  from: number;
  verbose: boolean;
}

function readOptions(): RunOptions {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      count: { type: 'string' },
      concurrency: { type: 'string' },
      from: { type: 'string' },
      verbose: { type: 'boolean', default: false },
    },
  });
  const whole = (name: string, text: string | undefined, fallback: number, min: number): number => {
    if (text === undefined || text === '') return fallback;
    const value = Number(text);
    if (!Number.isSafeInteger(value) || value < min)
      throw new Error(`--${name} must be a whole number of at least ${min}, not '${text}'`);
    return value;
  };
  return {
    seed: whole('seed', values.seed ?? process.env.FUZZ_SEED, Math.floor(Math.random() * 2 ** 31), 0),
    count: whole('count', values.count ?? process.env.FUZZ_COUNT, 100_000, 1),
    concurrency: whole('concurrency', values.concurrency ?? process.env.FUZZ_CONCURRENCY, 16, 1),
    from: whole('from', values.from, 0, 0),
    verbose: values.verbose ?? false,
  };
}

async function main(): Promise<number> {
  const options = readOptions();
  console.log(`fuzz seed: ${options.seed}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-fuzz-'));
  const configFile = join(dataDir, 'gateway.yaml');
  writeFileSync(configFile, FUZZ_GATEWAY_YAML);
  const bodyLimitBytes = loadConfig(configFile, {}).config.server.body_limit_bytes;
  const store = await openStore({ dataDir });
  const credentials = await createFuzzOrgs(store);
  const logFile = join(dataDir, 'gateway.log');
  const gateway = await startGatewayChild(configFile, dataDir, logFile);
  console.log(`gateway pid ${gateway.pid} on ${gateway.url}; data and log in ${dataDir}`);
  const problems: string[] = [];
  try {
    problems.push(
      ...(await checkCorpus(gateway.url, credentials)).map((problem) => `corpus before the run: ${problem}`),
    );
    const before = gateway.memory();
    let peakMb = before.peakMb;
    const started = performance.now();
    const progressEvery = Math.max(1000, Math.round(options.count / 20));
    const onAnswer = (judged: JudgedCase, done: number): void => {
      if (options.verbose) console.log(`${describeFailure(judged, options.seed)}\n`);
      if (done % progressEvery === 0 && gateway.alive()) {
        const memory = gateway.memory();
        peakMb = Math.max(peakMb, memory.peakMb);
        console.log(
          `  ${done} sent, ${(done / ((performance.now() - started) / 1000)).toFixed(0)}/s, gateway RSS ${memory.rssMb.toFixed(0)} MB`,
        );
      }
    };
    const result = await runCampaign({
      baseUrl: gateway.url,
      seed: options.seed,
      count: options.count,
      from: options.from,
      concurrency: options.concurrency,
      credentials,
      bodyLimitBytes,
      onAnswer,
    });
    if (!gateway.alive()) problems.push(`the gateway died during the run:\n${gateway.stderr()}`);
    const after = gateway.alive() ? gateway.memory() : { rssMb: Number.NaN, peakMb: Number.NaN };
    peakMb = Math.max(peakMb, after.peakMb);
    problems.push(...(await checkHealth(gateway.url)));
    const books = await checkBooks(store.db);
    problems.push(...books.problems);
    problems.push(...(await checkLedger(store.db, result.answered)));
    problems.push(
      ...(await checkCorpus(gateway.url, credentials)).map((problem) => `corpus after the run: ${problem}`),
    );

    console.log(`\n${summaryLine(result)}`);
    console.log(`\nstatuses per route:\n${statusTable(result)}`);
    console.log(`\nfindings by class (failures fail the run; notes are worth a look):\n${classesTable(result)}`);
    if (result.failures.length > 0 && !options.verbose) {
      console.log(`\n${result.failures.length} of ${result.failedCases} failing cases, the first of each class:`);
      for (const failure of result.failures) console.log(`\n${describeFailure(failure, options.seed)}`);
    }
    console.log(
      `\nbooks: ${books.audits.map((audit) => `${audit.orgId} balance ${audit.balanceMicros}, settled ${audit.settledCostMicros}, held ${audit.openHoldsMicros}, off by ${audit.discrepancyMicros}`).join('; ')}`,
    );
    console.log(
      `gateway RSS: ${before.rssMb.toFixed(0)} MB before, ${after.rssMb.toFixed(0)} MB after, ${peakMb.toFixed(0)} MB at most`,
    );
    if (problems.length > 0) console.log(`\nafter the run:\n${problems.map((problem) => `  ✗ ${problem}`).join('\n')}`);
    console.log(
      `\nfuzz seed: ${options.seed} (replay: npm run fuzz -- --seed ${options.seed} --count ${options.count})`,
    );
    return result.failedCases > 0 || problems.length > 0 ? 1 : 0;
  } finally {
    await gateway.stop();
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(2);
  },
);
