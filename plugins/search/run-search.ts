// One search as the model asked for it: the query from the call's arguments, the provider asked with a
// timeout, and the gateway's own rules applied whatever the provider did (domain filters, no duplicate
// pages, at most the context size's result count). A failure is an errored search, not an error of the
// request; only the client going away stops the request.
import type { WebSearchOptions } from '../../core/canonical.js';
import {
  domainFilter,
  SearchError,
  type SearchProvider,
  type SearchQuery,
  type SearchResult,
} from './providers/index.js';
import type { SearchMetrics } from './search-metrics.js';

export type SearchOutcome = { query: string; results: SearchResult[] } | { query: string; errorCode: string };

const MAX_QUERY_CHARS = 400;

export interface SearchRun {
  provider: SearchProvider;
  options: WebSearchOptions;
  maxResults: number;
  timeoutMs: number;
  /** The client's signal: when it aborts, the search's rejection is the request's end. */
  signal: AbortSignal;
  /** The provider's series, when the metrics are on. */
  metrics: SearchMetrics | undefined;
}

/** The query of a search call's arguments (`{"query": "…"}`), or undefined when there is none. */
export function queryOf(argumentsText: string): string | undefined {
  try {
    const parsed = JSON.parse(argumentsText) as unknown;
    const query = typeof parsed === 'object' && parsed !== null ? (parsed as { query?: unknown }).query : undefined;
    return typeof query === 'string' && query.trim() !== '' ? query.trim() : undefined;
  } catch {
    return undefined;
  }
}

export async function runSearch(query: string | undefined, run: SearchRun): Promise<SearchOutcome> {
  if (query === undefined) return { query: '', errorCode: 'invalid_input' };
  if (query.length > MAX_QUERY_CHARS) return { query, errorCode: 'query_too_long' };
  const { options } = run;
  const signal = AbortSignal.any([run.signal, AbortSignal.timeout(run.timeoutMs)]);
  const request: SearchQuery = { query, maxResults: run.maxResults, signal };
  if (options.allowed_domains !== undefined) request.allowedDomains = options.allowed_domains;
  if (options.blocked_domains !== undefined) request.blockedDomains = options.blocked_domains;
  if (options.user_location !== undefined) request.userLocation = options.user_location;
  let found: SearchResult[];
  const startedAt = run.metrics === undefined ? 0 : performance.now();
  try {
    found = await untilAborted(run.provider.search(request), signal);
  } catch (error) {
    // A search the client's leaving stopped did not fail: only the provider's own failures count.
    if (run.signal.aborted) throw error;
    run.metrics?.called(false, (performance.now() - startedAt) / 1000);
    return { query, errorCode: error instanceof SearchError ? error.code : 'unavailable' };
  }
  run.metrics?.called(true, (performance.now() - startedAt) / 1000);
  const allowed = domainFilter(options.allowed_domains, options.blocked_domains);
  const seen = new Set<string>();
  const results = found.filter((result) => {
    if (typeof result.url !== 'string' || seen.has(result.url) || !allowed(result.url)) return false;
    seen.add(result.url);
    return true;
  });
  return { query, results: results.slice(0, run.maxResults) };
}

/** A provider that ignores its signal still cannot hold the request past the timeout. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new SearchError('unavailable', 'the search was aborted'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new SearchError('unavailable', 'the search timed out'));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
