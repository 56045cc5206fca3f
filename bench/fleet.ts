// `npm run bench:fleet`: a fleet on this machine. The sim, one PostgreSQL and one redis-server, three gateway nodes
// with the default plugin chain on them (store in PostgreSQL, counters in Redis), and nginx in front with the
// documented configuration (docs/nginx/gateway.conf) naming the first one, two or three nodes. For each fleet size
// and scenario it loads nginx and reads every process's CPU time around the cell: the throughput of the fleet, and
// the CPU per request of a node, of nginx, of PostgreSQL and of Redis, which predict what more cores would carry.
// Writes bench/results/fleet.json.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { DOCUMENTED_CONF, mainConf, renderGatewayConf } from './fleet-nginx.js';
import { loadRequests } from './load.js';
import { machineInfo, readCpuTotals, type CpuTotals } from './machine.js';
import { findNginx } from './nginx.js';
import { findPostgres, startPostgres } from './postgres.js';
import { freePort, startServer, stopAll, type ServerProcess } from './processes.js';
import { redisServerVersion, startRedis } from './redis.js';
import { median } from './stats.js';
import { requestBody, requestHeaders, scenarioNamed, type ScenarioName } from './scenarios.js';
import {
  benchOrgSpend,
  createBenchOrg,
  fullChainConfig,
  FULL_CHAIN_PLUGINS,
  GATEWAY_BIN,
  GATEWAY_MODEL,
  type BenchStore,
} from './targets.js';

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'results');
const MAX_NODES = 3;
const SCENARIO_NAMES: readonly ScenarioName[] = ['nonstream', 'stream-paced'];
/** Lets in-flight work and timers finish before CPU time is read again. */
const SETTLE_MS = 150;

interface FleetOptions {
  durationS: number;
  connections: number;
  repeats: number;
}

interface FleetCell {
  nodes: number;
  scenario: ScenarioName;
  repeat: number;
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  /** CPU per request of every node together (the fleet's gateway work), and of each node. */
  nodesUsPerRequest: number;
  perNodeUsPerRequest: number[];
  nginxUsPerRequest: number;
  postgresUsPerRequest: number;
  redisUsPerRequest: number;
  simUsPerRequest: number;
  /** The machine's busy share of all its CPUs over the cell. */
  busyPct: number;
}

function readOptions(env: NodeJS.ProcessEnv): FleetOptions {
  const whole = (name: string, fallback: number): number => {
    const value = env[name] === undefined || env[name] === '' ? fallback : Number(env[name]);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1`);
    return value;
  };
  return {
    durationS: whole('BENCH_DURATION', 10),
    connections: whole('BENCH_CONNECTIONS', 64),
    repeats: whole('BENCH_REPEATS', 2),
  };
}

async function main(): Promise<void> {
  const options = readOptions(process.env);
  const nginx = findNginx();
  const postgresBin = findPostgres();
  if (nginx === undefined || postgresBin === undefined || redisServerVersion() === undefined)
    throw new Error(
      'the fleet bench needs nginx, PostgreSQL and redis-server (apt-get install nginx-light postgresql redis-server)',
    );

  const simPort = await freePort();
  const sim = await startServer({
    name: 'sim',
    args: [GATEWAY_BIN, 'sim', '--host', '127.0.0.1', '--port', String(simPort)],
    port: simPort,
  });
  const [redis, postgres] = await Promise.all([startRedis(), startPostgres(postgresBin)]);
  const dataDir = mkdtempSync(join(tmpdir(), 'fleet-bench-'));
  const store: BenchStore = { dataDir, url: postgres.url };
  const key = await createBenchOrg(store);
  const configFile = join(dataDir, 'gateway.yaml');
  writeFileSync(configFile, fullChainConfig(FULL_CHAIN_PLUGINS));
  const nodes: ServerProcess[] = [];
  for (let index = 0; index < MAX_NODES; index++) {
    const port = await freePort();
    nodes.push(
      await startServer({
        name: `node-${index + 1}`,
        args: [GATEWAY_BIN, 'start', '--config', configFile],
        env: {
          GATEWAY_PORT: String(port),
          GATEWAY_UPSTREAM_URL: `${sim.url}/v1`,
          GATEWAY_LOG_LEVEL: 'info',
          GATEWAY_DATA_DIR: mkdtempSync(join(tmpdir(), `fleet-bench-node-${index + 1}-`)),
          GATEWAY_DATABASE_URL: postgres.url,
          GATEWAY_REDIS_URL: redis.url,
          GATEWAY_WORKERS: '1',
        },
        port,
      }),
    );
  }
  console.log(
    `started: sim pid ${sim.pid}, postgres pid ${postgres.process.pid}, redis-server pid ${redis.process.pid}, ${nodes.map((node) => `${node.name} pid ${node.pid} ${node.url}`).join(', ')}`,
  );

  const headers = { authorization: `Bearer ${key}` };
  const cells: FleetCell[] = [];
  for (let repeat = 1; repeat <= options.repeats; repeat++) {
    // Fleet sizes in turn, the order reversed every other repeat, so a drift of the machine hits each alike.
    const sizes = Array.from({ length: MAX_NODES }, (_, index) => index + 1);
    if (repeat % 2 === 0) sizes.reverse();
    for (const size of sizes) {
      const front = await startFront(nginx.path, nodes.slice(0, size));
      const url = `${front.url}/v1/chat/completions`;
      await checkMetered(url, headers, store);
      for (const name of SCENARIO_NAMES) {
        const scenario = scenarioNamed(name);
        const load = {
          url,
          headers: requestHeaders(scenario, headers),
          body: requestBody('chat', scenario, GATEWAY_MODEL),
        };
        await loadRequests(load, { ...options, durationS: 2 }); // warm-up: JIT, pools, nginx's keepalive
        const before = readCpu(front.process);
        const result = await loadRequests(load, options);
        await sleep(SETTLE_MS);
        const after = readCpu(front.process);
        const requests = result['2xx'];
        const perRequest = (ms: number): number => (requests > 0 ? (ms * 1000) / requests : Number.NaN);
        const nodeMs = nodes.slice(0, size).map((node) => after.nodes.get(node)! - before.nodes.get(node)!);
        const cell: FleetCell = {
          nodes: size,
          scenario: name,
          repeat,
          requests,
          rps: requests / result.duration,
          p50Ms: result.latency.p50,
          p99Ms: result.latency.p99,
          failures: result.errors + result.non2xx + result.timeouts,
          nodesUsPerRequest: perRequest(nodeMs.reduce((sum, ms) => sum + ms, 0)),
          perNodeUsPerRequest: nodeMs.map(perRequest),
          nginxUsPerRequest: perRequest(after.nginx - before.nginx),
          postgresUsPerRequest: perRequest(after.postgres - before.postgres),
          redisUsPerRequest: perRequest(after.redis - before.redis),
          simUsPerRequest: perRequest(after.sim - before.sim),
          busyPct: busyPercent(before.machine, after.machine),
        };
        cells.push(cell);
        console.log(
          `${size} node(s) ${name} #${repeat}: ${cell.rps.toFixed(0)} req/s, nodes ${cell.nodesUsPerRequest.toFixed(0)} us/req, busy ${cell.busyPct.toFixed(0)}%`,
        );
      }
      await front.process.stop();
    }
  }

  /** Every process's CPU time so far, and the machine's. */
  function readCpu(front: ServerProcess) {
    return {
      nodes: new Map(nodes.map((node) => [node, node.cpuMs()])),
      nginx: front.cpuMs(),
      postgres: postgres.process.cpuMs(),
      redis: redis.process.cpuMs(),
      sim: sim.cpuMs(),
      machine: readCpuTotals(),
    };
  }

  const rows = summarize(cells);
  console.log(`\n${fleetTable(rows)}`);
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(
    join(RESULTS_DIR, 'fleet.json'),
    `${JSON.stringify({ machine: machineInfo(), options, nginx: nginx.version, rows, cells }, null, 2)}\n`,
  );
  console.log(`\nwrote ${join(RESULTS_DIR, 'fleet.json')}`);
}

/** nginx, one process, with the documented configuration naming these nodes. */
async function startFront(
  nginxPath: string,
  nodes: readonly ServerProcess[],
): Promise<{ url: string; process: ServerProcess }> {
  const dir = mkdtempSync(join(tmpdir(), 'fleet-bench-nginx-'));
  const port = await freePort();
  const include = join(dir, 'gateway.conf');
  writeFileSync(
    include,
    renderGatewayConf(
      readFileSync(DOCUMENTED_CONF, 'utf8'),
      nodes.map((node) => new URL(node.url).host),
      `127.0.0.1:${port}`,
    ),
  );
  writeFileSync(join(dir, 'nginx.conf'), mainConf(dir, include));
  const process = await startServer({
    name: 'nginx',
    command: nginxPath,
    args: ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'],
    port,
  });
  return { url: process.url, process };
}

/** One request through the fleet: a 200, and the organization's spend in PostgreSQL went up (the meter ran). */
async function checkMetered(url: string, headers: Record<string, string>, store: BenchStore): Promise<void> {
  const before = await benchOrgSpend(store);
  const scenario = scenarioNamed('nonstream');
  const response = await request(url, {
    method: 'POST',
    headers: requestHeaders(scenario, headers),
    body: requestBody('chat', scenario, GATEWAY_MODEL, 2),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`the fleet answered ${response.statusCode}: ${text.slice(0, 300)}`);
  for (let attempt = 0; attempt < 30; attempt++) {
    if ((await benchOrgSpend(store)).spentMicros > before.spentMicros) return;
    await sleep(100);
  }
  throw new Error('the fleet answered 200 but charged nothing in PostgreSQL within 3 s');
}

function busyPercent(before: CpuTotals, after: CpuTotals): number {
  const total = after.total - before.total;
  return total > 0 ? (100 * (after.busy - before.busy)) / total : Number.NaN;
}

interface FleetRow {
  nodes: number;
  scenario: ScenarioName;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  failures: number;
  nodesUsPerRequest: number;
  /** The most any one node spent per fleet request: how evenly nginx spread the load. */
  busiestNodeShare: number;
  nginxUsPerRequest: number;
  postgresUsPerRequest: number;
  redisUsPerRequest: number;
  simUsPerRequest: number;
  busyPct: number;
  /** What one core given wholly to one node would serve: 10^6 / the node's CPU per request. */
  reqPerNodeCore: number;
}

/** Medians over the repeats, per fleet size and scenario. */
function summarize(cells: readonly FleetCell[]): FleetRow[] {
  const rows: FleetRow[] = [];
  for (let nodes = 1; nodes <= MAX_NODES; nodes++) {
    for (const scenario of SCENARIO_NAMES) {
      const group = cells.filter((cell) => cell.nodes === nodes && cell.scenario === scenario);
      if (group.length === 0) continue;
      const pick = (value: (cell: FleetCell) => number): number => median(group.map(value));
      const nodesUs = pick((cell) => cell.nodesUsPerRequest);
      rows.push({
        nodes,
        scenario,
        rps: pick((cell) => cell.rps),
        p50Ms: pick((cell) => cell.p50Ms),
        p99Ms: pick((cell) => cell.p99Ms),
        failures: group.reduce((sum, cell) => sum + cell.failures, 0),
        nodesUsPerRequest: nodesUs,
        busiestNodeShare: pick((cell) => Math.max(...cell.perNodeUsPerRequest) / cell.nodesUsPerRequest),
        nginxUsPerRequest: pick((cell) => cell.nginxUsPerRequest),
        postgresUsPerRequest: pick((cell) => cell.postgresUsPerRequest),
        redisUsPerRequest: pick((cell) => cell.redisUsPerRequest),
        simUsPerRequest: pick((cell) => cell.simUsPerRequest),
        busyPct: pick((cell) => cell.busyPct),
        reqPerNodeCore: 1_000_000 / nodesUs,
      });
    }
  }
  return rows;
}

function fleetTable(rows: readonly FleetRow[]): string {
  const header = [
    'nodes',
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'nodes us/req',
    'busiest node',
    'nginx us/req',
    'postgres us/req',
    'redis us/req',
    'sim us/req',
    'busy %',
    'req/s per node core',
    'failures',
  ];
  const body = rows.map((row) => [
    String(row.nodes),
    row.scenario,
    row.rps.toFixed(0),
    String(row.p50Ms),
    String(row.p99Ms),
    row.nodesUsPerRequest.toFixed(0),
    `${(100 * row.busiestNodeShare).toFixed(0)}%`,
    row.nginxUsPerRequest.toFixed(0),
    row.postgresUsPerRequest.toFixed(0),
    row.redisUsPerRequest.toFixed(0),
    row.simUsPerRequest.toFixed(0),
    row.busyPct.toFixed(0),
    row.reqPerNodeCore.toFixed(0),
    String(row.failures),
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...body.map((line) => line[column]!.length)));
  return [header, ...body]
    .map((line) => line.map((cell, column) => cell.padStart(widths[column]!)).join('  '))
    .join('\n');
}

main()
  .catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  })
  .finally(() => stopAll());
