import type { ChatCompletion, ChatRequest, CanonicalEvent, JsonObject } from './canonical.js';
import type { GatewayError } from './errors.js';
import type { LimitSnapshot } from './limit-snapshot.js';
import type { ServedTier } from './service-tier.js';
import type { ThinkingSigner } from './thinking-signer.js';

/** `spec`: the spec's shapes plus what SDKs need; `openai`: the upstream OpenAI wire exactly (docs/wire.md). */
export type WireProfile = 'spec' | 'openai';

export interface RenderedError {
  status: number;
  body: JsonObject;
}

/**
 * Where an encoder's frames go, each the moment it is made: an event name (null for a data-only frame, as the
 * openai wire of the chat dialect sends them) and its data (JSON text, or chat's `[DONE]`). The HTTP door
 * writes each as a server-sent event, the WebSocket door sends its data as a message, a batch line collects them.
 */
export interface FrameSink {
  frame(event: string | null, data: string): void;
}

/** Turns canonical events into the dialect's frames, into the sink each call is given. */
export interface StreamEncoder {
  start(out: FrameSink): void;
  event(event: CanonicalEvent, out: FrameSink): void;
  end(out: FrameSink): void;
  error(error: GatewayError, out: FrameSink): void;
  /** A keep-alive event, sent while nothing else is (long waits, searches); dialects without one omit it. */
  ping?(out: FrameSink): void;
  /**
   * The whole answer to a request that asked for nothing to be generated (a WebSocket warm-up): its start and
   * end with no output. Dialects with a socket mode have it.
   */
  warmUp?(out: FrameSink): void;
}

/**
 * What an encoder needs of the exchange: its id (the answer's ids derive from it), its arrival time, its
 * wire profile, and the gateway's signer of thinking (for dialects that sign it).
 */
export interface EncodeContext {
  readonly id: string;
  /** Unix seconds. */
  readonly created: number;
  readonly wire: WireProfile;
  readonly thinkingSigner: ThinkingSigner;
  /** The client as it names itself (proxy/routing/wire-negotiation.ts), for an event only that client reads. */
  readonly client: string | undefined;
  /** The organization's limit window and balance, when the rate limiter knows them. */
  readonly limits: LimitSnapshot | undefined;
  /** The service tier the request is served at, when the meter resolved one (none: `default`). */
  readonly serviceTier?: ServedTier | undefined;
}

/**
 * A decoded request: the canonical request, and the echo: what the dialect's encoders need of the
 * client's request beyond the canonical form (typed per dialect, handed back to its encoders).
 */
export interface DecodedRequest<Echo> {
  readonly request: ChatRequest;
  readonly echo: Echo;
}

/** A route a dialect declares: its method, path and what it does. */
export interface DialectRoute {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly kind: 'generate' | 'count_tokens';
}

/** The API family a client belongs to, by its headers (proxy/routing/models.ts): OpenAI's or Anthropic's. */
export type ApiFamily = 'openai' | 'anthropic';

/**
 * A client dialect: its request decoder, its encoders and its error shape. The core holds it as
 * `Dialect` (echo unknown) and only ever hands an encoder the echo its own `decode` returned.
 */
export interface Dialect<Echo = unknown> {
  /** Its name in the log, the metrics and the ledger (`chat`, `messages`, `responses`). */
  readonly name: string;
  /** The routes it serves (the router takes them as declared: the runtime names no dialect). */
  readonly routes: readonly DialectRoute[];
  /** Whose clients it serves: the routes that answer for the node (`GET /v1/models/{id}`) answer a caller of this family in its error shape. */
  readonly family: ApiFamily;
  /** Validates the parsed body and returns the canonical request; throws GatewayError (400/404). */
  decode(body: unknown): DecodedRequest<Echo>;
  /** Whether the client asked for an event stream. */
  wantsStream(request: ChatRequest): boolean;
  streamEncoder(context: EncodeContext, echo: Echo): StreamEncoder;
  encodeBody(completion: ChatCompletion, context: EncodeContext, echo: Echo): JsonObject;
  renderError(error: GatewayError): RenderedError;
  /** Requests as messages on one WebSocket, for dialects that have it (OpenAI's Responses WebSocket mode). */
  socket?: SocketMode;
  /** Token counting without generation, for dialects that have it (POST /v1/messages/count_tokens). */
  countTokens?: {
    decode(body: unknown): ChatRequest;
    encode(inputTokens: number): JsonObject;
  };
}

/**
 * A dialect's WebSocket mode: the client sends each request as a message on one connection and gets its
 * events back as messages (proxy/socket/). The core runs each message as its own exchange; the dialect
 * says what a message means and keeps what later messages may refer to (an earlier response).
 */
export interface SocketMode {
  /** The state of one connection. */
  open(): SocketConversation;
}

export interface SocketConversation {
  /**
   * A client message (parsed JSON) as the body of a streamed request for `Dialect.decode`, and whether
   * the client wants anything generated (a warm-up does not); throws a GatewayError naming the field.
   */
  request(message: unknown): { body: unknown; generate: boolean };
  /** Every event the client was sent for the request, by name, with its JSON text (what a later request may build on). */
  sent(event: string, data: string): void;
}

/** What every route needs from a dialect even before it can generate: its error shape. */
export type ErrorRenderer = Pick<Dialect, 'renderError'>;
