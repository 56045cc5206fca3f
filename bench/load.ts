// One cell of the matrix: autocannon against one target for one scenario, with the target's CPU time around it.
// The gateway's three targets share one process; their cells never overlap, so each cell's CPU time is its own.
// A full chain on shared services also has their CPU time (redis-server, PostgreSQL) read around the cell.
import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';
import { otherPercent, readCpuTotals, stealPercent } from './machine.js';
import type { ServerProcess } from './processes.js';
import { requestBody, requestHeaders, type Scenario } from './scenarios.js';
import { targetUrl, type Target } from './targets.js';

export interface LoadOptions {
  connections: number;
  /** Whole seconds: autocannon checks for the end once a second. */
  durationS: number;
}

export interface CellResult {
  target: string;
  scenario: string;
  repeat: number;
  /** Completed 2xx responses. */
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
  timeouts: number;
  /** CPU time of the target's process over the run, milliseconds. */
  cpuMs: number;
  /** CPU time of the sim over the run, milliseconds (the upstream's share; equal to cpuMs for `direct`). */
  simCpuMs: number;
  /** CPU time of the target's services (redis-server, PostgreSQL) over the run, milliseconds; null for a target without any. */
  servicesCpuMs: number | null;
  cpuUsPerRequest: number;
  rssMb: number;
  /** CPU time the hypervisor took from this machine during the cell, percent of all CPUs (noise warning). */
  stealPct: number;
  /** CPU time processes outside the bench (neither its servers nor the load generator) used during the cell, percent of all CPUs (noise warning). */
  otherPct: number;
}

/** Lets in-flight work and timers finish before CPU time is read again. */
const SETTLE_MS = 150;

/** `servers`: every server the bench started (each once), whose CPU time is the bench's own, not another process's. */
export async function runCell(
  target: Target,
  sim: ServerProcess,
  scenario: Scenario,
  options: LoadOptions,
  repeat: number,
  servers: readonly ServerProcess[],
): Promise<CellResult> {
  const cpuBefore = target.server.cpuMs();
  const simBefore = sim.cpuMs();
  const servicesBefore = servicesCpuMs(target);
  const ownBefore = ownCpuMs(servers);
  const machineBefore = readCpuTotals();
  const result = await load(target, scenario, options);
  await sleep(SETTLE_MS);
  const machineAfter = readCpuTotals();
  const ownMs = ownCpuMs(servers) - ownBefore;
  const cpuMs = target.server.cpuMs() - cpuBefore;
  const simCpuMs = sim.cpuMs() - simBefore;
  const servicesAfter = servicesCpuMs(target);
  const servicesMs =
    servicesAfter === undefined || servicesBefore === undefined ? null : servicesAfter - servicesBefore;
  const steal = stealPercent(machineBefore, machineAfter);
  const requests = result['2xx'];
  const perRequest = requests > 0 ? (cpuMs * 1000) / requests : Number.NaN;
  return {
    target: target.name,
    scenario: scenario.name,
    repeat,
    requests,
    rps: requests / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    timeouts: result.timeouts,
    cpuMs,
    simCpuMs,
    servicesCpuMs: servicesMs,
    cpuUsPerRequest: perRequest,
    rssMb: target.server.rssMb(),
    stealPct: steal,
    otherPct: otherPercent(machineBefore, machineAfter, ownMs),
  };
}

/** CPU time of the bench's servers and of this process (the load generator), milliseconds. */
function ownCpuMs(servers: readonly ServerProcess[]): number {
  const self = process.cpuUsage();
  return servers.reduce((sum, server) => sum + server.cpuMs(), (self.user + self.system) / 1000);
}

/** Load without measuring: JIT warm-up and connection pools filled. */
export async function warmUp(target: Target, scenario: Scenario, options: LoadOptions): Promise<void> {
  await load(target, scenario, options);
}

function load(target: Target, scenario: Scenario, options: LoadOptions): PromiseLike<autocannon.Result> {
  return loadRequests(
    {
      url: targetUrl(target),
      headers: requestHeaders(scenario, target.headers),
      body: requestBody(target.dialect, scenario, target.model),
    },
    options,
  );
}

/** One request, sent by every connection again and again for the duration (autocannon, one at a time per connection). */
export function loadRequests(
  request: { url: string; headers: Record<string, string>; body: string },
  options: LoadOptions,
): PromiseLike<autocannon.Result> {
  return autocannon({
    ...request,
    method: 'POST',
    connections: options.connections,
    pipelining: 1,
    duration: options.durationS,
    timeout: 10,
  });
}

/** The CPU time of the target's services together, or undefined for a target without any. */
function servicesCpuMs(target: Target): number | undefined {
  if (target.services === undefined || target.services.length === 0) return undefined;
  return target.services.reduce((total, service) => total + service.cpuMs(), 0);
}
