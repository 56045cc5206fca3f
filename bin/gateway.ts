#!/usr/bin/env node
// The `gateway` command: `gateway start`, `gateway sim`, and the store's `orgs`, `credits` and `keys` (admin/cli.ts).
import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { CAP_FLAGS, type CapFlag } from '../admin/cap-commands.js';
import { runStoreCommand, STORE_COMMANDS, STORE_USAGE, UsageError } from '../admin/cli.js';
import { ConfigError } from '../config/errors.js';
import { loadConfig } from '../config/load.js';
import { tiersOf } from '../limits/tiers.js';
import { StoreError } from '../store/errors.js';
import { openRevocationBus } from '../services/services.js';
import { storeOptionsOf } from '../services/store-options.js';
import { onStopSignals } from './stop-signals.js';
import { WORKER_VARIABLE } from './worker-variable.js';

const USAGE = `usage:
  gateway start [--config FILE]                     run the gateway (GATEWAY_CONFIG may name the file)
  gateway sim [--config FILE] [--host H] [--port N] [--flavor vllm|llama-server]
                                                    run the reference upstream alone (sim.flavor: the server it plays)
  gateway migrate [--config FILE]                   bring the store's schema up to date (before a rollout)
${STORE_USAGE}`;

async function main(argv: string[]): Promise<void> {
  const { positionals, values } = parseCommandLine(argv);
  const command = positionals[0];
  if (values.help || command === undefined || command === 'help') {
    console.log(USAGE);
    return;
  }
  const loaded = loadConfig(values.config ?? process.env.GATEWAY_CONFIG);
  if (command === 'start' && process.env[WORKER_VARIABLE] !== undefined) {
    await (await import('./worker.js')).runWorker(loaded);
    return;
  }
  if (command === 'start') {
    const auth = loaded.config.plugins.some((plugin) => plugin.name === 'auth');
    const storeOptions = storeOptionsOf(loaded);
    const demoKey = auth ? await (await import('../admin/demo-org.js')).createDemoKeyIfEmpty(storeOptions) : undefined;
    const workers = workerCount(loaded.config.server.workers);
    // Imported here: the proxy, the dialects and the tokenizer are what `start` needs and the store's commands do not.
    const gateway =
      workers > 1
        ? await (await import('./workers.js')).startWorkers(loaded, workers)
        : await (await import('./start-gateway.js')).startGateway(loaded);
    gateway.log.info(
      { url: gateway.url, model: loaded.config.model.id, upstream: gateway.upstreamUrls },
      'gateway listening',
    );
    if (demoKey !== undefined)
      console.error(
        `\nFirst start: created the organization 'demo' with 10 credits and this key (shown once):\n  ${demoKey}`,
      );
    if (auth && storeOptions.postgres !== undefined)
      gateway.log.info(
        'shared store (PostgreSQL): no demo organization is created; make one with `gateway orgs create`',
      );
    const keyHeader = auth ? ` -H 'authorization: Bearer ${demoKey ?? 'YOUR_KEY'}'` : '';
    console.error(
      `\nGateway on ${gateway.url} serving '${loaded.config.model.id}'. Try:\n  curl ${gateway.url}/v1/chat/completions${keyHeader} -H 'content-type: application/json' -d '{"model":"${loaded.config.model.id}","messages":[{"role":"user","content":"Hello"}]}'\n`,
    );
    if (gateway.adminUrl !== undefined)
      console.error(
        `Dashboard on ${gateway.adminUrl}/ (log in with the token in ${loaded.config.admin.token_env}); admin API under ${gateway.adminUrl}/admin/v1\n`,
      );
    onStopSignals(gateway);
    return;
  }
  if (command === 'sim') {
    const { startSim } = await import('../sim/server.js');
    const sim = loaded.config.sim;
    const flavor = simFlavor(values.flavor) ?? sim.flavor ?? 'vllm';
    const running = await startSim({
      host: values.host ?? sim.host,
      port: values.port !== undefined ? Number(values.port) : sim.port,
      servedModel: loaded.config.model.upstream_name,
      ttftMs: sim.ttft_ms,
      prefillUsPerToken: sim.prefill_us_per_token ?? 0,
      itlMs: sim.itl_ms,
      outputTokens: sim.output_tokens,
      reasoningParser: sim.reasoning_parser ?? false,
      flavor,
      ...(sim.api_key !== undefined ? { apiKey: sim.api_key } : {}),
    });
    console.log(`reference upstream (${flavor}) on ${running.url}/v1 serving '${loaded.config.model.upstream_name}'`);
    onSignal(() => running.close());
    return;
  }
  if (command === 'migrate') {
    if (positionals.length > 1) throw new UsageError('usage: gateway migrate [--config FILE]');
    const { openStore } = await import('../store/store.js');
    const store = await openStore(storeOptionsOf(loaded));
    try {
      for (const name of store.migrated) console.log(`applied ${name}`);
      console.error(
        store.migrated.length === 0
          ? `the store ${store.path} is up to date`
          : `applied ${store.migrated.length} migration(s) to ${store.path}`,
      );
    } finally {
      await store.close();
    }
    return;
  }
  if (STORE_COMMANDS.has(command)) {
    const { openStore } = await import('../store/store.js');
    const store = await openStore(storeOptionsOf(loaded));
    // Only a revocation and a change of caps or service tiers need the bus; with Redis it reaches running gateways at once.
    const announces =
      (positionals[0] === 'keys' && positionals[1] === 'revoke') ||
      (positionals[0] === 'caps' && positionals[1] !== 'show') ||
      (positionals[0] === 'orgs' && positionals[1] === 'service-tiers' && positionals.length > 3);
    const revocations = announces ? await openRevocationBus(loaded.config) : undefined;
    try {
      const { out, err, failed } = await runStoreCommand(store, positionals, {
        members: values.member ?? [],
        ...(values.key !== undefined ? { key: values.key } : {}),
        caps: Object.fromEntries(Object.values(CAP_FLAGS).map((flag) => [flag, values[flag]])),
        tiers: tiersOf(loaded.config.limits.tiers),
        ...(revocations ? { revocations } : {}),
      });
      for (const line of out) console.log(line);
      for (const line of err) console.error(line);
      if (failed === true) process.exitCode = 1;
    } finally {
      await revocations?.close();
      await store.close();
    }
    return;
  }
  throw new UsageError(`unknown command '${command}'\n${USAGE}`);
}

/** `server.workers`: `auto` (or unset) is one per core. */
function workerCount(workers: number | 'auto' | undefined): number {
  return workers === undefined || workers === 'auto' ? availableParallelism() : workers;
}

/** `--flavor`: the server the sim plays. */
function simFlavor(value: string | undefined): 'vllm' | 'llama-server' | undefined {
  if (value === undefined || value === 'vllm' || value === 'llama-server') return value;
  throw new UsageError(`--flavor must be vllm or llama-server, got '${value}'`);
}

/** The options of `caps set` (--day-micros N …). */
const capOptions = Object.fromEntries(Object.values(CAP_FLAGS).map((flag) => [flag, { type: 'string' }])) as Record<
  CapFlag,
  { type: 'string' }
>;

function parseCommandLine(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        config: { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        flavor: { type: 'string' },
        member: { type: 'string', multiple: true },
        key: { type: 'string' },
        ...capOptions,
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function onSignal(close: () => Promise<void>): void {
  const stop = (): void => {
    close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof UsageError || error instanceof StoreError)
    console.error(`gateway: ${error.message}`);
  else console.error(error);
  process.exit(error instanceof UsageError ? 64 : 1);
});
