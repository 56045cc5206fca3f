// The search providers' options as the search plugin takes them from the config, and their JSON Schema
// (checked once, when the config loads). Defaults live in the code, not in the schema.

export type ProviderName = 'local' | 'searxng' | 'brave' | 'tavily';

export interface SearchProviderOptions {
  /** Which provider answers the searches; default `local`. */
  provider?: ProviderName;
  /** How long an HTTP provider may take for one search, in ms; default 10000. */
  timeout_ms?: number;
  local?: {
    /** A folder of Markdown documents (front matter `url`, `title`, optional `date`); default: the demo corpus. */
    corpus?: string;
  };
  searxng?: {
    /** The instance's base URL (JSON output enabled in its settings.yml). */
    url?: string;
    /** SearxNG's `language` parameter, e.g. `en-US` or `all`; default: the instance's. */
    language?: string;
  };
  brave?: {
    /** Base URL; default `https://api.search.brave.com`. */
    url?: string;
    /** The variable holding the subscription token; default `BRAVE_API_KEY`. */
    api_key_env?: string;
    /** Ask for `extra_snippets` (plans that have them); default false. */
    extra_snippets?: boolean;
  };
  tavily?: {
    /** Base URL; default `https://api.tavily.com`. */
    url?: string;
    /** The variable holding the API key; default `TAVILY_API_KEY`. */
    api_key_env?: string;
    /** `basic` (1 credit) or `advanced` (2 credits); default `basic`. */
    search_depth?: 'basic' | 'advanced';
  };
}

export const DEFAULT_TIMEOUT_MS = 10_000;

const httpUrl = { type: 'string', pattern: '^https?://[^\\s]+$' };
const envName = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' };

/** The JSON Schema of SearchProviderOptions; the search plugin embeds it (e.g. by spreading its `properties`). */
export const searchProviderOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    provider: { enum: ['local', 'searxng', 'brave', 'tavily'] },
    timeout_ms: { type: 'integer', minimum: 100, maximum: 120_000 },
    local: {
      type: 'object',
      additionalProperties: false,
      properties: { corpus: { type: 'string', minLength: 1 } },
    },
    searxng: {
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: { url: httpUrl, language: { type: 'string', minLength: 1 } },
    },
    brave: {
      type: 'object',
      additionalProperties: false,
      properties: { url: httpUrl, api_key_env: envName, extra_snippets: { type: 'boolean' } },
    },
    tavily: {
      type: 'object',
      additionalProperties: false,
      properties: { url: httpUrl, api_key_env: envName, search_depth: { enum: ['basic', 'advanced'] } },
    },
  },
} as const;
