// Wire negotiation (docs/wire.md, "Which profile a request gets"): the profile a client gets when neither the
// `x-gateway-wire` header nor the config forces one, from how the client names itself in its headers.
import type { IncomingHttpHeaders } from 'node:http';
import type { WireProfile } from '../../core/dialect.js';

/** The config's `wire`: `auto` negotiates per request; `spec` or `openai` forces that profile on every client. */
export type WireSetting = WireProfile | 'auto';

/** A client as it names itself: a header (lower case) whose value matches `pattern`, and the profile it gets. */
export interface WireRule {
  readonly client: string;
  readonly header: string;
  readonly pattern: RegExp;
  readonly wire: WireProfile;
}

/**
 * First match wins. The Anthropic SDKs are Stainless-generated too (they send `x-stainless-*`), so they are
 * recognised first, by the `anthropic-version` header every Anthropic client sends; they keep `spec`, as
 * before negotiation (the messages dialect has one shape in both profiles).
 */
export const WIRE_RULES: readonly WireRule[] = [
  {
    client: 'Anthropic SDKs, Claude Code, the AI SDK anthropic provider',
    header: 'anthropic-version',
    pattern: /./,
    wire: 'spec',
  },
  { client: 'Anthropic SDKs', header: 'user-agent', pattern: /^Anthropic\//i, wire: 'spec' },
  {
    client: 'openai SDKs (Node, Python, …)',
    header: 'user-agent',
    pattern: /^(Async)?(Azure)?OpenAI\//i,
    wire: 'openai',
  },
  { client: 'Stainless-generated SDKs', header: 'x-stainless-lang', pattern: /./, wire: 'openai' },
  { client: 'OpenAI Agents SDK', header: 'user-agent', pattern: /^Agents\/(JavaScript|Python)\b/i, wire: 'openai' },
  // `ai/6… ai-sdk/provider-utils/…` up to AI SDK 6, `ai/7… ai-sdk-provider-utils/…` from 7.
  {
    client: 'AI SDK',
    header: 'user-agent',
    pattern: /(^|\s)(ai\/\d|ai-sdk\/|ai-sdk-provider-utils\/)/i,
    wire: 'openai',
  },
  { client: 'LangChain', header: 'user-agent', pattern: /^langchain/i, wire: 'openai' },
  { client: 'pydantic-ai', header: 'user-agent', pattern: /^pydantic-ai\//i, wire: 'openai' },
  { client: 'Codex', header: 'originator', pattern: /^codex/i, wire: 'openai' },
  { client: 'Codex', header: 'user-agent', pattern: /^codex/i, wire: 'openai' },
  { client: 'OpenCode', header: 'user-agent', pattern: /^opencode\//i, wire: 'openai' },
];

/** The first rule the request's headers match, if any. */
export function recognizedClient(headers: IncomingHttpHeaders): WireRule | undefined {
  return WIRE_RULES.find((rule) => {
    const value = headers[rule.header];
    const text = Array.isArray(value) ? value.join(', ') : value;
    return text !== undefined && rule.pattern.test(text);
  });
}

/** The profile the config and the client's name give, before any `x-gateway-wire` header: forced, else negotiated, else `spec`. */
export function negotiatedWire(headers: IncomingHttpHeaders, setting: WireSetting): WireProfile {
  if (setting !== 'auto') return setting;
  return recognizedClient(headers)?.wire ?? 'spec';
}
