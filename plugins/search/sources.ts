// The sources of one request: every result the model reads gets a number, in order (replayed results
// first), and is shown to the model under it (`[n]`). To the client a source travels sealed: its page
// in `encrypted_content`, a citation of it in `encrypted_index`.
import type { Citation, SearchContextSize, SearchSource } from '../../core/canonical.js';
import type { Sealer } from './sealer.js';

/** How many results the model sees per search, and how many characters of them in all. */
export interface ContextSize {
  results: number;
  chars: number;
}

export const DEFAULT_CONTEXT_SIZES: Readonly<Record<SearchContextSize, ContextSize>> = {
  low: { results: 3, chars: 3_000 },
  medium: { results: 5, chars: 10_000 },
  high: { results: 10, chars: 30_000 },
};

/** The most of a page that is sealed into `encrypted_content` (and so can be shown again on replay). */
const SEALED_CONTENT_LIMIT = 8_000;
/** Anthropic's `cited_text` is at most 150 characters of the source. */
const CITED_TEXT_LIMIT = 150;

export interface Source {
  number: number;
  url: string;
  title: string;
  content: string;
  pageAge: string | null;
}

/** What `encrypted_content` holds. */
export interface SealedPage {
  u: string;
  t: string;
  c: string;
  a: string | null;
}

export class SourceBook {
  readonly #sources: Source[] = [];
  readonly #sealer: Sealer;

  constructor(sealer: Sealer) {
    this.#sealer = sealer;
  }

  add(page: Omit<Source, 'number'>): Source {
    const source = { ...page, content: page.content.slice(0, SEALED_CONTENT_LIMIT), number: this.#sources.length + 1 };
    this.#sources.push(source);
    return source;
  }

  get(number: number): Source | undefined {
    return this.#sources[number - 1];
  }

  get size(): number {
    return this.#sources.length;
  }

  /** The result as the client gets it. */
  sealed(source: Source): SearchSource {
    const page: SealedPage = { u: source.url, t: source.title, c: source.content, a: source.pageAge };
    return {
      url: source.url,
      title: source.title,
      page_age: source.pageAge,
      encrypted_content: this.#sealer.seal('content', page),
    };
  }

  citation(source: Source): Citation {
    const citedText = citedTextOf(source.content);
    return {
      url: source.url,
      title: source.title,
      cited_text: citedText,
      encrypted_index: this.#sealer.seal('index', { n: source.number, u: source.url, c: citedText }),
    };
  }
}

/** The tool result the model reads: each source under its number, the text shared out within the size's budget. */
export function resultsText(sources: readonly Source[], size: ContextSize): string {
  if (sources.length === 0) return 'No results were found for this query.';
  const perSource = Math.max(200, Math.floor(size.chars / sources.length));
  return sources
    .map((source) => {
      const head = `[${source.number}] ${oneLine(source.title)}\nURL: ${source.url}${source.pageAge ? `\nPublished: ${source.pageAge}` : ''}`;
      return `${head}\n${cut(source.content, perSource)}`;
    })
    .join('\n\n');
}

const ERROR_TEXT: Readonly<Record<string, string>> = {
  max_uses_exceeded: 'the search limit of this request was reached; answer with the results you already have',
  too_many_requests: 'the search service is rate limited right now',
  invalid_input: 'the search query was not valid',
  query_too_long: 'the search query is too long',
  unavailable: 'the search service is unavailable right now',
};

export function errorText(code: string): string {
  return `Error: ${code} (${ERROR_TEXT[code] ?? 'the search failed'}).`;
}

/** The model sees the title on the numbered line: one line, whatever the provider sent. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const part = text.slice(0, limit - 1);
  const space = part.lastIndexOf(' ');
  return (space > limit / 2 ? part.slice(0, space) : part) + '…';
}

/** The source's first sentence (or words) up to 150 characters: the passage a citation points at. */
function citedTextOf(content: string): string {
  const text = content.replace(/\s+/g, ' ').trim();
  if (text.length <= CITED_TEXT_LIMIT) return text;
  const sentence = /^.{20,150}?[.!?](?=\s)/.exec(text);
  return sentence !== null ? sentence[0] : cut(text, CITED_TEXT_LIMIT);
}
