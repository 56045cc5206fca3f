// Per-request overrides of the sim's options: x-sim-ttft-ms, x-sim-prefill-us-per-token, x-sim-itl-ms,
// x-sim-output-tokens and x-sim-fault; and x-sim-usage, the usage figures a misbehaving server would report. A malformed value
// is a 400, so a test notices.
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from './errors.js';
import { parseFaultHeader, type SimFault } from './faults.js';
import type { UsageOverride } from './usage.js';

export interface RequestKnobs {
  ttftMs: number;
  /** The prefill of one prompt token the prompt cache did not hold, µs (first-token.ts). */
  prefillUsPerToken: number;
  itlMs: number;
  outputTokens: number;
  fault: SimFault;
  /** Reported instead of the counted usage (per request only). */
  usage?: UsageOverride;
}

export function requestKnobs(headers: IncomingHttpHeaders, defaults: RequestKnobs): RequestKnobs {
  const fault = header(headers, 'x-sim-fault');
  const usage = header(headers, 'x-sim-usage');
  const knobs: RequestKnobs = {
    ttftMs: count(headers, 'x-sim-ttft-ms') ?? defaults.ttftMs,
    prefillUsPerToken: count(headers, 'x-sim-prefill-us-per-token') ?? defaults.prefillUsPerToken,
    itlMs: count(headers, 'x-sim-itl-ms') ?? defaults.itlMs,
    outputTokens: count(headers, 'x-sim-output-tokens') ?? defaults.outputTokens,
    fault: fault === undefined ? defaults.fault : parseFaultHeader(fault),
  };
  if (usage !== undefined) knobs.usage = parseUsageHeader(usage);
  return knobs;
}

const USAGE_FIELDS: ReadonlySet<string> = new Set(['prompt', 'completion', 'cached']);

/** `x-sim-usage: prompt=1e18,completion=-5,cached=2.5`: any of the three, each any finite JSON number. */
function parseUsageHeader(value: string): UsageOverride {
  const override: UsageOverride = {};
  for (const pair of value.split(',')) {
    const match = /^\s*(\w+)\s*=\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*$/.exec(pair);
    const name = match?.[1];
    const number = Number(match?.[2]);
    if (name === undefined || !USAGE_FIELDS.has(name) || !Number.isFinite(number)) {
      throw badRequest(`x-sim-usage: expected prompt=N, completion=N and/or cached=N, comma-separated; got '${value}'`);
    }
    override[name as keyof UsageOverride] = number;
  }
  return override;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function count(headers: IncomingHttpHeaders, name: string): number | undefined {
  const value = header(headers, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value.trim())) throw badRequest(`${name}: expected a whole number ≥ 0, got '${value}'`);
  return Number(value);
}
