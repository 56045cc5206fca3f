// The search loop (spec rule 6): the model answers with the search function offered; each call of it
// is run here (search_call, then search_result), the call and its results go into the conversation,
// and the model is called again, inside the one client request, up to `max_uses` searches. Beyond
// them a call gets the error `max_uses_exceeded` and the model answers from what it has. A round in
// which the model also calls a client tool ends the turn: the client runs its tool.
import {
  SEARCH_FUNCTION_NAME,
  type CanonicalEvent,
  type ResponseEvent,
  type ChatMessage,
  type ChatRequest,
  type ChatUsage,
  type WebSearchOptions,
} from '../../core/canonical.js';
import type { Exchange } from '../../core/exchange.js';
import { iterate } from '../../proxy/stream/event-bridges.js';
import type { EventStream } from '../../core/event-stream.js';
import type { Next } from '../../core/plugin.js';
import { completionAsChunk } from './completion-chunk.js';
import type { SearchProvider } from './providers/index.js';
import { Round } from './round.js';
import { queryOf, runSearch } from './run-search.js';
import type { SearchMetrics } from './search-metrics.js';
import { tracedSearch } from './traced-search.js';
import { errorText, resultsText, type ContextSize, type SourceBook } from './sources.js';
import { addUsage } from './usage.js';

export interface SearchSetup {
  options: WebSearchOptions;
  size: ContextSize;
  provider: SearchProvider;
  timeoutMs: number;
  /** exchange.locals.searches: what the meter bills. */
  counter: { executed: number };
  metrics: SearchMetrics | undefined;
}

export interface LoopInput {
  exchange: Exchange;
  request: ChatRequest;
  next: Next;
  book: SourceBook;
  /** Undefined when only replayed results are in the request: then no searching, only citations. */
  search: SearchSetup | undefined;
}

/** The events of every round, with the searches between them (read as a loop: proxy/stream/event-bridges.ts). */
export async function* searchLoop(first: EventStream, input: LoopInput): AsyncGenerator<ResponseEvent> {
  const { exchange, request, search, book } = input;
  const streamed = request.stream === true;
  // A model that keeps calling after the limit gets errors; it is not called forever.
  const maxRounds = (search?.options.max_uses ?? 0) + 2;
  let events = first;
  let prior: ChatUsage | undefined;
  let used = 0;
  let searchCount = 0;
  for (let round = 1; ; round++) {
    const state = new Round(
      { holdCalls: search !== undefined, streamed, prior, searches: () => search?.counter.executed },
      book,
    );
    for await (const event of iterate(events)) {
      if (event.type === 'chunk') yield* state.take(event.chunk);
      else if (event.type === 'completion') yield* state.take(completionAsChunk(event.completion));
      else yield event;
    }
    yield* state.end();
    const calls = search === undefined ? [] : state.searchCalls();
    prior = addUsage(prior, state.usage);
    if (search === undefined || calls.length === 0) {
      yield* state.finishEvents();
      if (prior !== undefined) yield state.totalChunk(prior);
      return;
    }
    const answers: ChatMessage[] = [];
    const callIds: string[] = [];
    for (const call of calls) {
      const id = `${exchange.id}_${++searchCount}`;
      callIds.push(call.id !== '' ? call.id : `call_${id}`);
      const query = queryOf(call.arguments);
      yield { type: 'search_call', id, query: query ?? '' } satisfies CanonicalEvent;
      let text: string;
      if (used >= search.options.max_uses) {
        yield { type: 'search_result', id, results: [], error_code: 'max_uses_exceeded' } satisfies CanonicalEvent;
        text = errorText('max_uses_exceeded');
      } else {
        used++;
        const run = {
          provider: search.provider,
          options: search.options,
          maxResults: search.size.results,
          timeoutMs: search.timeoutMs,
          signal: exchange.signal,
          metrics: search.metrics,
        };
        const outcome = await (exchange.trace ? tracedSearch(exchange.trace, query, run) : runSearch(query, run));
        if ('errorCode' in outcome) {
          yield { type: 'search_result', id, results: [], error_code: outcome.errorCode } satisfies CanonicalEvent;
          text = errorText(outcome.errorCode);
        } else {
          search.counter.executed++;
          const sources = outcome.results.map((result) =>
            book.add({
              url: result.url,
              title: result.title,
              content: result.content,
              pageAge: result.pageAge ?? null,
            }),
          );
          yield {
            type: 'search_result',
            id,
            results: sources.map((source) => book.sealed(source)),
          } satisfies CanonicalEvent;
          text = resultsText(sources, search.size);
        }
      }
      answers.push({ role: 'tool', tool_call_id: callIds.at(-1)!, content: text });
    }
    if (state.clientCalls().length > 0 || round >= maxRounds || exchange.signal.aborted) {
      yield* state.finishEvents();
      if (prior !== undefined) yield state.totalChunk(prior);
      return;
    }
    request.messages.push(
      {
        role: 'assistant',
        content: state.text === '' ? null : state.text,
        tool_calls: calls.map((call, n) => ({
          id: callIds[n]!,
          type: 'function',
          function: { name: SEARCH_FUNCTION_NAME, arguments: call.arguments },
        })),
      },
      ...answers,
    );
    // A forced first search (tool_choice required, or named) forces only the first round.
    if (request.tool_choice === 'required' || typeof request.tool_choice === 'object') request.tool_choice = 'auto';
    events = await input.next();
  }
}
