// One cell of the matrix: autocannon against one target for one scenario, with the target's CPU time around it.
import autocannon from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';
import { readCpuTotals, stealPercent } from './machine.js';
import { CHAT_PATH, requestBody, requestHeaders, type Scenario } from './scenarios.js';
import type { Target } from './targets.js';

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
  cpuUsPerRequest: number;
  /** Per streamed content chunk; null for a non-streamed scenario. */
  cpuUsPerChunk: number | null;
  rssMb: number;
  /** CPU time the hypervisor took from this machine during the cell, percent of all CPUs (noise warning). */
  stealPct: number;
}

/** Lets in-flight work and timers finish before CPU time is read again. */
const SETTLE_MS = 150;

export async function runCell(target: Target, sim: Target['server'], scenario: Scenario, options: LoadOptions, repeat: number): Promise<CellResult> {
  const cpuBefore = target.server.cpuMs();
  const simBefore = sim.cpuMs();
  const machineBefore = readCpuTotals();
  const result = await load(target, scenario, options);
  await sleep(SETTLE_MS);
  const cpuMs = target.server.cpuMs() - cpuBefore;
  const simCpuMs = sim.cpuMs() - simBefore;
  const steal = stealPercent(machineBefore, readCpuTotals());
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
    cpuUsPerRequest: perRequest,
    cpuUsPerChunk: scenario.chunks > 0 ? perRequest / scenario.chunks : null,
    rssMb: target.server.rssMb(),
    stealPct: steal,
  };
}

/** Load without measuring: JIT warm-up and connection pools filled. */
export async function warmUp(target: Target, scenario: Scenario, options: LoadOptions): Promise<void> {
  await load(target, scenario, options);
}

function load(target: Target, scenario: Scenario, options: LoadOptions): PromiseLike<autocannon.Result> {
  return autocannon({
    url: target.server.url + CHAT_PATH,
    method: 'POST',
    headers: requestHeaders(scenario),
    body: requestBody(scenario, target.model),
    connections: options.connections,
    pipelining: 1,
    duration: options.durationS,
    timeout: 10,
  });
}
