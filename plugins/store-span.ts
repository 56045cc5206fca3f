// A store call on a request's path under its own span when the request is traced (kind CLIENT, `store
// <what>`): the span covers the request's whole wait, a group-committed write's wait for its batch's
// commit included. Callers check `exchange.trace` first, so an untraced request makes no closure.
import type { Store } from '../store/store.js';
import { SpanKind, type RequestTrace } from '../telemetry/request-trace.js';

export type DbSystem = 'sqlite' | 'postgresql';

/** The `db.system.name` of a store. */
export function dbSystemOf(store: Store): DbSystem {
  return store.shared ? 'postgresql' : 'sqlite';
}

export function storeSpan<T>(trace: RequestTrace, what: string, system: DbSystem, work: () => Promise<T>): Promise<T> {
  return trace.during(`store ${what}`, SpanKind.CLIENT, { 'db.system.name': system }, work);
}
