// Per-request overrides of the sim's options: x-sim-ttft-ms, x-sim-itl-ms,
// x-sim-output-tokens and x-sim-fault. A malformed value is a 400, so a test notices.
import type { IncomingHttpHeaders } from 'node:http';
import { badRequest } from './errors.js';
import { parseFaultHeader, type SimFault } from './faults.js';

export interface RequestKnobs {
  ttftMs: number;
  itlMs: number;
  outputTokens: number;
  fault: SimFault;
}

export function requestKnobs(headers: IncomingHttpHeaders, defaults: RequestKnobs): RequestKnobs {
  const fault = header(headers, 'x-sim-fault');
  return {
    ttftMs: count(headers, 'x-sim-ttft-ms') ?? defaults.ttftMs,
    itlMs: count(headers, 'x-sim-itl-ms') ?? defaults.itlMs,
    outputTokens: count(headers, 'x-sim-output-tokens') ?? defaults.outputTokens,
    fault: fault === undefined ? defaults.fault : parseFaultHeader(fault),
  };
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
