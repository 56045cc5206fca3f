// Injected failures. `status`: answer that status with a vLLM error body before anything else;
// `cut`: send `afterChunks` stream chunks, then destroy the socket (no [DONE]); `stall`: send
// `afterChunks` chunks, then nothing until the client goes away; `reset`: destroy the socket
// before any response byte; `error`: send `afterChunks` stream chunks, then an error event in the
// server's shape, as a server that fails in the middle of an answer (llama-server's full KV cache).
// In a non-streaming response `afterChunks` counts body bytes (`error` then answers a 500 at once).
import { badRequest } from './errors.js';

export interface SimFault {
  kind: 'none' | 'status' | 'cut' | 'stall' | 'reset' | 'error';
  status?: number;
  afterChunks?: number;
}

export const NO_FAULT: SimFault = { kind: 'none' };

/** The `x-sim-fault` header: `500`, `503` (any status), `cut:N`, `stall:N`, `error:N`, `reset` or `none`. */
export function parseFaultHeader(value: string): SimFault {
  const text = value.trim().toLowerCase();
  if (text === 'none' || text === '') return NO_FAULT;
  if (text === 'reset') return { kind: 'reset' };
  if (/^\d{3}$/.test(text)) return checkFault({ kind: 'status', status: Number(text) });
  const match = /^(cut|stall|error):(\d+)$/.exec(text);
  if (match?.[1] === 'cut' || match?.[1] === 'stall' || match?.[1] === 'error')
    return { kind: match[1], afterChunks: Number(match[2]) };
  throw badRequest(`x-sim-fault: expected a status (e.g. 503), cut:N, stall:N, error:N, reset or none; got '${value}'`);
}

/** Checks a fault given in the options or a header. */
export function checkFault(fault: SimFault): SimFault {
  if (fault.kind === 'status') {
    const status = fault.status ?? 500;
    if (!Number.isInteger(status) || status < 400 || status > 599) {
      throw badRequest(`a status fault needs a 4xx or 5xx status, got ${String(fault.status)}`);
    }
    return { kind: 'status', status };
  }
  if (fault.kind === 'cut' || fault.kind === 'stall' || fault.kind === 'error') {
    const after = fault.afterChunks ?? 0;
    if (!Number.isInteger(after) || after < 0) throw badRequest(`a ${fault.kind} fault needs afterChunks ≥ 0`);
    return { kind: fault.kind, afterChunks: after };
  }
  return fault;
}
