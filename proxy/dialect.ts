import type { ChatCompletion, ChatRequest, CanonicalEvent, JsonObject } from './canonical.js';
import type { GatewayError } from './errors.js';
import type { Exchange } from './exchange.js';

/** `spec`: the spec's shapes plus what SDKs need; `openai`: the upstream OpenAI wire exactly (WIRE.md). */
export type WireProfile = 'spec' | 'openai';

export interface RenderedError {
  status: number;
  body: JsonObject;
}

/** Turns canonical events into the dialect's SSE text, one call per event; '' when nothing is due. */
export interface StreamEncoder {
  start(): string;
  event(event: CanonicalEvent): string;
  end(): string;
  error(error: GatewayError): string;
  /** A keep-alive event, sent while nothing else is (long waits, searches); dialects without one omit it. */
  ping?(): string;
}

/** A client dialect: its request decoder, its encoders and its error shape. */
export interface Dialect {
  readonly name: string;
  /** Validates the parsed body and returns the canonical request; throws GatewayError (400/404). */
  decode(body: unknown, exchange: Exchange): ChatRequest;
  /** Whether the client asked for an event stream. */
  wantsStream(request: ChatRequest): boolean;
  streamEncoder(exchange: Exchange): StreamEncoder;
  encodeBody(completion: ChatCompletion, exchange: Exchange): JsonObject;
  renderError(error: GatewayError): RenderedError;
  /** Token counting without generation, for dialects that have it (POST /v1/messages/count_tokens). */
  countTokens?: {
    decode(body: unknown): ChatRequest;
    encode(inputTokens: number): JsonObject;
  };
}

/** What every route needs from a dialect even before it can generate: its error shape. */
export type ErrorRenderer = Pick<Dialect, 'renderError'>;
