// The search providers' options as the search plugin takes them from the config, and their JSON Schema
// (checked once, when the config loads). Defaults live in the code, not in the schema.
import type { JSONSchemaType } from 'ajv';
import { optional } from '../../../config/optional-key.js';

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
    url: string;
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

const httpUrl: JSONSchemaType<string> = { type: 'string', pattern: '^https?://[^\\s]+$' };
const envName: JSONSchemaType<string> = { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' };

/**
 * The JSON Schema of SearchProviderOptions; the search plugin embeds it (by spreading its `properties`,
 * which `satisfies` keeps typed key by key).
 */
export const searchProviderOptionsSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    provider: optional({ type: 'string', enum: ['local', 'searxng', 'brave', 'tavily'] }),
    timeout_ms: optional({ type: 'integer', minimum: 100, maximum: 120_000 }),
    local: optional({
      type: 'object',
      additionalProperties: false,
      properties: { corpus: optional({ type: 'string', minLength: 1 }) },
    }),
    searxng: optional({
      type: 'object',
      additionalProperties: false,
      required: ['url'],
      properties: { url: httpUrl, language: optional({ type: 'string', minLength: 1 }) },
    }),
    brave: optional({
      type: 'object',
      additionalProperties: false,
      properties: {
        url: optional(httpUrl),
        api_key_env: optional(envName),
        extra_snippets: optional({ type: 'boolean' }),
      },
    }),
    tavily: optional({
      type: 'object',
      additionalProperties: false,
      properties: {
        url: optional(httpUrl),
        api_key_env: optional(envName),
        search_depth: optional({ type: 'string', enum: ['basic', 'advanced'] }),
      },
    }),
  },
} satisfies JSONSchemaType<SearchProviderOptions>;
