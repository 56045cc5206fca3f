// A search under its own span when the request is traced: kind CLIENT, `search <provider>`, failed with
// the search's error code (`unavailable`, `too_many_requests`, …) when it errored. The query is never an
// attribute: it is the model's text, made from the client's prompt.
import { endSpan, errorTypeOf, SpanKind, type RequestTrace } from '../../telemetry/request-trace.js';
import { runSearch, type SearchOutcome, type SearchRun } from './run-search.js';

export async function tracedSearch(
  trace: RequestTrace,
  query: string | undefined,
  run: SearchRun,
): Promise<SearchOutcome> {
  const span = trace.child(`search ${run.provider.name}`, SpanKind.CLIENT, {
    'gateway.search.provider': run.provider.name,
  });
  let outcome: SearchOutcome;
  try {
    outcome = await runSearch(query, run);
  } catch (error) {
    endSpan(span, errorTypeOf(error));
    throw error;
  }
  if ('errorCode' in outcome) endSpan(span, outcome.errorCode);
  else {
    span.setAttribute('gateway.search.results', outcome.results.length);
    endSpan(span);
  }
  return outcome;
}
