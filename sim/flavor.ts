// The inference server the sim plays: vLLM (vllm-flavor.ts, the default) or llama.cpp's llama-server
// (llama-flavor.ts). A flavor holds everything that differs between the two on the wire: the routes
// beside chat completions, the error shape, how a chat body is read, how the prompt is built (a
// trailing assistant message), the context check, the prompt cache, and the answer's shape, streamed
// and not. The generation rule (answer.ts, generation.ts) is the same model behind both.
import type { IncomingHttpHeaders } from 'node:http';
import type { ChatPrompt } from './chat-prompt.js';
import type { StreamChunk } from './chat-stream.js';
import type { SimChatRequest } from './chat-types.js';
import type { SimError } from './errors.js';
import type { Generation } from './generation.js';
import type { ResponseMeta } from './usage.js';

export type SimFlavorName = 'vllm' | 'llama-server';

export const SIM_FLAVORS: readonly SimFlavorName[] = ['vllm', 'llama-server'];

/** Prompt tokens a server keeps for the next request: vLLM's prefix cache, llama-server's slots. */
export interface PromptCache {
  /**
   * `reuse` false: nothing cached is used (llama-server's `cache_prompt: false`). `salt`: vLLM's
   * `cache_salt`, a prefix is reused only by requests with the same salt (or none with none).
   */
  admit(promptIds: readonly number[], reuse: boolean, salt: string | null): PromptAdmission;
}

export interface PromptAdmission {
  /** Leading prompt tokens found cached. */
  cachedTokens: number;
  /** The request is over: with the answer's ids when it was sent whole, else undefined. */
  finish(outputIds: readonly number[] | undefined): void;
}

/** A chat body as the server reads it. */
export interface ChatReading {
  request: SimChatRequest;
  /** The trailing assistant message llama-server continues and echoes; null otherwise. */
  prefill: string | null;
  /** Whether cached prompt tokens may be used (llama-server's `cache_prompt`, default true). */
  reusesCache: boolean;
  /** vLLM's `cache_salt`, which partitions its prefix cache; null without one (llama-server ignores it). */
  cacheSalt: string | null;
}

/** What the routes beside chat completions describe. */
export interface ServedModel {
  name: string;
  /** The context length (vLLM's max_model_len, llama-server's n_ctx per slot). */
  contextTokens: number;
  /** llama-server's parallel slots (`-np`). */
  slots: number;
}

/** The answer to a request, other than a chat completion; no body: an empty one. */
export interface RouteAnswer {
  status: number;
  body?: unknown;
}

/** One chat request's answer, as both shapes need it. */
export interface ChatAnswer {
  request: SimChatRequest;
  prompt: ChatPrompt;
  gen: Generation;
  meta: ResponseMeta;
  /** The trailing assistant message llama-server continues (and echoes); null when there is none to continue. */
  prefill: string | null;
  ttftMs: number;
  itlMs: number;
}

export interface SimFlavor {
  readonly name: SimFlavorName;
  /** The chat-completions paths (POST). */
  readonly chatPaths: readonly string[];
  /** Whether a path needs the API key, when the sim has one, and whether these headers carry it. */
  guarded(path: string): boolean;
  authorized(headers: IncomingHttpHeaders, apiKey: string): boolean;
  /** The body of a 401. */
  unauthorized(): unknown;
  /** A route other than chat completions (`METHOD /path`); undefined when the server has none there. */
  route(key: string, body: () => unknown, model: ServedModel): RouteAnswer | undefined;
  /** The answer to a request no route takes. */
  notFound(method: string, path: string): RouteAnswer;
  /** A request body as JSON; throws a SimError when it is not. */
  parseBody(text: string): unknown;
  errorBody(err: SimError): unknown;
  /** The chat body validated; throws a SimError. */
  chatRequest(body: unknown): ChatReading;
  /** Throws a SimError when the request names a model the server does not serve. */
  checkModel(model: string | null, servedModel: string): void;
  /** The max_tokens to generate with; throws a SimError when the prompt cannot fit. */
  fitContext(promptTokens: number, maxTokens: number | null, contextTokens: number): number;
  promptCache(slots: number): PromptCache;
  completionId(): string;
  completionBody(answer: ChatAnswer): object;
  streamChunks(answer: ChatAnswer): StreamChunk[];
  /** The error of a generation that fails half-way (the `error:N` fault). */
  generationFailure(): SimError;
  /** What a stream sends for an error in its middle, its end included. */
  streamError(err: SimError): string;
}
