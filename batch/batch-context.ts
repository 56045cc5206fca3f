// What the batch APIs' handlers share: the store, the file storage, the limits, and what they ask of the node
// (is a model served, which route runs an endpoint, where the gateway is reached) and of its worker.
import type { BatchConfig } from '../config/types.js';
import { GatewayError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import type { Exchange } from '../core/exchange.js';
import type { Route } from '../core/route.js';
import type { Store } from '../store/store.js';
import type { LineQueue } from './line-queue.js';
import type { FileStorage } from './storage/file-storage.js';

export interface BatchContext {
  readonly store: Store;
  /** Records a new batch and queues its lines. */
  readonly queue: Pick<LineQueue, 'create'>;
  readonly storage: FileStorage;
  readonly limits: BatchConfig;
  /** Whether a line's `model` is one this gateway serves (its id or an alias). */
  readonly servesModel: (model: string) => boolean;
  /** The generation route of an endpoint a batch may run (/v1/chat/completions, /v1/responses, /v1/messages). */
  readonly routeOf: (endpoint: string) => Route | undefined;
  /** Tells the worker there is new work. */
  readonly wake: () => void;
  readonly now: () => number;
}

/** The caller's organization and key (the auth plugin ran before), or a 401 if the chain has no auth. */
export function callerOf(exchange: Exchange): { orgId: string; keyId: string } {
  const caller = exchange.locals.caller;
  if (caller === undefined)
    throw new GatewayError('GW_ERR_AUTH_MISSING_KEY', 'The batch APIs need an API key (the auth plugin is not on).');
  return caller;
}

/** The request's query string, parsed. */
export function queryOf(exchange: Exchange): URLSearchParams {
  return new URL(exchange.req.url ?? '/', 'http://gateway').searchParams;
}

/** A page size from the query: an integer from 1 to `max`, `fallback` when absent. */
export function limitOf(query: URLSearchParams, name: string, fallback: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw new GatewayError('GW_ERR_REQUEST_INVALID', `${name} must be an integer from 1 to ${max}.`, name);
  return limit;
}

/** A list's cursor that names none of the caller's records (a list would otherwise start over from the newest). */
export function unknownCursor(param: string, value: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID', `${param} names none of yours: ${printable(value)}.`, param);
}

/** Unix ms as Unix seconds (OpenAI's times), null kept. */
export function seconds(ms: number | null): number | null {
  return ms === null ? null : Math.floor(ms / 1000);
}
