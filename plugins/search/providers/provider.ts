// A search provider: where the gateway's server-side web search gets its results. The search plugin
// enforces domain filters and result counts itself, whatever the provider does with them.

export interface UserLocation {
  type?: 'approximate';
  city?: string;
  region?: string;
  /** ISO 3166-1 alpha-2. */
  country?: string;
  /** IANA time zone. */
  timezone?: string;
}

export interface SearchQuery {
  query: string;
  /** How many results the caller wants at most (the plugin trims to this anyway). */
  maxResults: number;
  /** Only these domains (and their subdomains); passed on where the provider supports it. */
  allowedDomains?: readonly string[];
  /** Never these domains (and their subdomains). */
  blockedDomains?: readonly string[];
  userLocation?: UserLocation;
  /** Aborted on the timeout or when the client goes away. */
  signal: AbortSignal;
}

export interface SearchResult {
  url: string;
  title: string;
  /** The page's text the model gets to read (and the encrypted_content carries). */
  content: string;
  /** How old the page is, as the provider says it (e.g. "2 days ago", an ISO date), if it does. */
  pageAge?: string;
}

/** Anthropic's web search error codes; the plugin turns a thrown SearchError into an errored search (not billed). */
export type SearchErrorCode =
  'unavailable' | 'too_many_requests' | 'invalid_input' | 'query_too_long' | 'max_uses_exceeded';

export class SearchError extends Error {
  constructor(
    readonly code: SearchErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'SearchError';
  }
}

export interface SearchProvider {
  readonly name: string;
  /** Results, best first; throws SearchError (or anything, treated as `unavailable`). */
  search(query: SearchQuery): Promise<SearchResult[]>;
  close?(): Promise<void>;
}
