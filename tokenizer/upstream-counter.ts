// Counting by asking the upstream itself, with the request as it would go upstream: exact by
// construction, whatever the model. Two flavours of the endpoint:
// - vLLM (and SGLang): POST {base}/tokenize {model, messages, tools, add_generation_prompt, chat_template_kwargs} → {count}
// - llama-server: POST {base}/apply-template {messages, tools, ...} → {prompt}, then
//   POST {base}/tokenize {content: prompt, add_special, parse_special: true} → {tokens}, as its chat
//   endpoint tokenizes the rendered prompt (add_special puts back the BOS the renderer strips).
// The upstream's key goes along as `Authorization: Bearer`, as on chat requests.
import { Pool } from 'undici';
import type { ChatRequest } from '../core/canonical.js';
import { readCappedText, type ReadableBody } from '../core/capped-text.js';
import { GatewayError } from '../core/errors.js';
import { CONNECTION_FAILURES } from '../core/upstream-errors.js';
import { rejectionMessage } from '../core/upstream-rejection.js';
import type { PromptInput } from '../prompt/prompt-input.js';
import { promptInput } from './request-prompt.js';
import type { TokenCounter, TokenCounterLog } from './counter.js';

export type TokenizeFlavor = 'vllm' | 'llama-server';

/** The endpoints `tokenizer.upstream.flavor` defaults to: llama-server's in front of llama-server, else vLLM's (SGLang has them too). */
export function tokenizeFlavorOf(upstreamFlavor: string | undefined): TokenizeFlavor {
  return upstreamFlavor === 'llama-server' ? 'llama-server' : 'vllm';
}

export interface UpstreamCounterOptions {
  /** Where the tokenize endpoints live: the server's origin (its `/v1` base without `/v1`). */
  baseUrl: string;
  flavor: TokenizeFlavor;
  apiKey: string | undefined;
  servedModel: string;
  /** Where the upstream's own error text goes (never to the client). */
  log?: TokenCounterLog;
  /** llama-server: tokenize with the model's BOS (its chat endpoint does). */
  addSpecial: boolean;
  timeoutMs: number;
  /** The largest answer read whole (a tokenize result lists every token); a longer one is not held. */
  maxBodyBytes: number;
}

/** How much of an error answer is read: the log keeps 1000 characters, the reason is in the first 4 KB. */
const ERROR_BODY_BYTES = 64 * 1024;

export class UpstreamCounter implements TokenCounter {
  readonly source = 'upstream' as const;
  readonly exact = true;
  readonly #options: UpstreamCounterOptions;
  readonly #pool: Pool;
  readonly #basePath: string;
  readonly #headers: Record<string, string>;

  constructor(options: UpstreamCounterOptions) {
    const url = new URL(options.baseUrl);
    this.#options = options;
    this.#basePath = url.pathname.replace(/\/+$/, '');
    this.#pool = new Pool(url.origin, {
      connections: 16,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
    this.#headers = { 'content-type': 'application/json' };
    if (options.apiKey) this.#headers.authorization = `Bearer ${options.apiKey}`;
  }

  async count(request: ChatRequest, signal?: AbortSignal): Promise<number> {
    const input = promptInput(request);
    if (this.#options.flavor === 'vllm') {
      const body = await this.#post(
        '/tokenize',
        { model: this.#options.servedModel, ...templateFields(input) },
        signal,
      );
      return integerField(body, 'count', '/tokenize');
    }
    const prompt = field(await this.#post('/apply-template', templateFields(input), signal), 'prompt');
    if (typeof prompt !== 'string') throw badResponse('/apply-template', 'has no `prompt`');
    const tokenized = await this.#post(
      '/tokenize',
      { content: prompt, add_special: this.#options.addSpecial, parse_special: true },
      signal,
    );
    const tokens = field(tokenized, 'tokens');
    if (!Array.isArray(tokens)) throw badResponse('/tokenize', 'has no `tokens` list');
    return tokens.length;
  }

  /** Its counts wait in the upstream's connection pool, not in a queue of its own. */
  queued(): number {
    return 0;
  }

  async close(): Promise<void> {
    await this.#pool.close();
  }

  async #post(path: string, body: object, signal: AbortSignal | undefined): Promise<unknown> {
    let response: Awaited<ReturnType<Pool['request']>>;
    try {
      response = await this.#pool.request({
        method: 'POST',
        path: this.#basePath + path,
        headers: this.#headers,
        body: JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw requestError(error, path, signal);
    }
    if (response.statusCode !== 200) {
      const text = await readText(response.body, ERROR_BODY_BYTES, path).catch(() => '');
      throw this.#statusError(response.statusCode, text, path);
    }
    let text: string;
    try {
      text = await readText(response.body, this.#options.maxBodyBytes, path);
    } catch (error) {
      throw error instanceof GatewayError ? error : requestError(error, path, signal);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw badResponse(path, 'is not JSON');
    }
  }

  #statusError(status: number, text: string, path: string): GatewayError {
    // The server's own text goes to the log only: it may carry tracebacks, addresses and paths.
    this.#options.log?.warn(
      { upstreamStatus: status, upstreamError: text.slice(0, 1000), path },
      'counting tokens: the model server answered with an error',
    );
    if (status === 400 || status === 413 || status === 422)
      return new GatewayError('GW_ERR_UPSTREAM_REJECTED', rejectionMessage(status, text));
    if (status === 429 || status === 503)
      return new GatewayError('GW_ERR_UPSTREAM_OVERLOADED', 'The model server is overloaded; try again shortly.');
    if (status === 504) return new GatewayError('GW_ERR_UPSTREAM_TIMEOUT', `The model server's ${path} timed out.`);
    const hint =
      status === 404 || status === 405
        ? ` (has it a ${path} endpoint? check tokenizer.upstream.flavor, or use tokenizer.source local)`
        : '';
    return new GatewayError(
      'GW_ERR_UPSTREAM_FAILED',
      `Counting tokens failed: the model server's ${path} answered ${status}${hint}.`,
    );
  }
}

/** A body as text, of at most `maxBytes`: past it the request is aborted (nothing more is read) and this rejects. */
async function readText(body: ReadableBody, maxBytes: number, path: string): Promise<string> {
  const text = await readCappedText(body, maxBytes);
  if (text === undefined) throw badResponse(path, `exceeds ${maxBytes} bytes`);
  return text;
}

/** The fields of a chat request that decide its prompt, as the upstream's endpoints take them. */
function templateFields(input: PromptInput): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    messages: input.messages,
    add_generation_prompt: input.addGenerationPrompt ?? true,
  };
  // A prefill: both vLLM's /tokenize and llama-server's /apply-template take vLLM's continuation switch.
  if (input.continueFinalMessage === true) fields.continue_final_message = true;
  if (input.tools && input.tools.length > 0) fields.tools = input.tools;
  if (input.chatTemplateKwargs !== undefined) fields.chat_template_kwargs = input.chatTemplateKwargs;
  return fields;
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

function integerField(body: unknown, name: string, path: string): number {
  const value = field(body, name);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw badResponse(path, `has no \`${name}\``);
  return value;
}

function badResponse(path: string, what: string): GatewayError {
  return new GatewayError(
    'GW_ERR_UPSTREAM_BAD_RESPONSE',
    `Counting tokens failed: the answer of the model server's ${path} ${what}.`,
  );
}

function requestError(error: unknown, path: string, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  const code = typeof error === 'object' && error !== null && 'code' in error ? String(error.code) : '';
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new GatewayError(
      'GW_ERR_UPSTREAM_TIMEOUT',
      `Counting tokens failed: the model server's ${path} did not answer in time.`,
    );
  }
  if (CONNECTION_FAILURES.has(code))
    return new GatewayError(
      'GW_ERR_UPSTREAM_UNREACHABLE',
      `Counting tokens failed: the model server's ${path} cannot be reached.`,
    );
  return new GatewayError(
    'GW_ERR_UPSTREAM_FAILED',
    `Counting tokens failed: the request to the model server's ${path} failed.`,
  );
}
