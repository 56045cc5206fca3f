// The reference upstream: an OpenAI-compatible server that behaves like vLLM serving Qwen3, or with
// `flavor: 'llama-server'` like llama.cpp's llama-server (see README.md for the routes, the generation
// rule, the options and the x-sim-* headers; flavor.ts for what the flavor decides).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { handleChat, type ChatContext } from './chat-handler.js';
import { SimError } from './errors.js';
import { checkFault, NO_FAULT, type SimFault } from './faults.js';
import type { RouteAnswer, ServedModel, SimFlavor, SimFlavorName } from './flavor.js';
import { readBody, sendJson } from './http-io.js';
import { llamaServerFlavor } from './llama-flavor.js';
import { warmUp } from './qwen3-prompt.js';
import { RequestLog, type RecordedRequest } from './request-log.js';
import { StatsCounter, type SimStats } from './stats.js';
import type { ReasoningField } from './usage.js';
import { vllmFlavor } from './vllm-flavor.js';

export type { SimFault } from './faults.js';
export type { SimFlavorName } from './flavor.js';
export type { RecordedRequest } from './request-log.js';
export type { SimStats } from './stats.js';

export interface SimOptions {
  /** The server played: 'vllm' (default) or 'llama-server' (llama.cpp's, README "The llama-server flavor"). */
  flavor?: SimFlavorName;
  /** Default '127.0.0.1'. */
  host?: string;
  /** Default 0 (ephemeral). */
  port?: number;
  /** The upstream's served model name; default 'Qwen/Qwen3-8B'. */
  servedModel?: string;
  /** When set, /v1/* requires `Authorization: Bearer <apiKey>` (401 otherwise), like `vllm serve --api-key`. */
  apiKey?: string;
  /** Delay before the first chunk / the body; default 0. */
  ttftMs?: number;
  /** Added to the TTFT per prompt token the prefix cache did not hold (the prefill), µs; default 0. */
  prefillUsPerToken?: number;
  /** Delay between streamed tokens; default 0. */
  itlMs?: number;
  /** Length in tokens of a generated answer (its end-of-turn token included) unless max_tokens cuts it; default 24. */
  outputTokens?: number;
  /** Default 32768; longer prompts are a 400, like vLLM (llama-server: the n_ctx of a slot). */
  maxModelLen?: number;
  /** llama-server's parallel slots (`-np`): /props `total_slots`, and the prompt caches kept; default 4. */
  slots?: number;
  /** Applies to every chat request unless x-sim-fault overrides it. */
  fault?: SimFault;
  /**
   * Play `vllm serve … --reasoning-parser qwen3`: answers start with Qwen3's thinking (unless the request sets
   * `chat_template_kwargs.enable_thinking: false`), streamed as reasoning deltas; default false (no parser).
   */
  reasoningParser?: boolean;
  /** The reasoning field's name: `reasoning_content` (default; vLLM before 0.11, SGLang, llama-server) or `reasoning` (current vLLM); the llama-server flavor always says `reasoning_content`. */
  reasoningField?: ReasoningField;
  /** Load the tokenizer at start (default) rather than with the first request that needs it (~0.5 s, ~130 MB). */
  warmUp?: boolean;
}

export interface RunningSim {
  /** e.g. http://127.0.0.1:41234 (no trailing slash, no /v1). */
  url: string;
  port: number;
  stats(): SimStats;
  /** The stats once `holds` is true of them, checked now and whenever a chat request starts or ends. */
  until(holds: (stats: SimStats) => boolean): Promise<SimStats>;
  /** The last 100 requests received, oldest first. */
  requests(): RecordedRequest[];
  /** true: stop listening (new connections get ECONNREFUSED); false: listen again on the same port. */
  setRefusing(refusing: boolean): Promise<void>;
  /** Closes the server and all open sockets. */
  close(): Promise<void>;
}

export async function startSim(options: SimOptions = {}): Promise<RunningSim> {
  const host = options.host ?? '127.0.0.1';
  const servedModel = options.servedModel ?? 'Qwen/Qwen3-8B';
  const maxModelLen = whole('maxModelLen', options.maxModelLen ?? 32768, 1);
  const flavor = flavorNamed(options.flavor ?? 'vllm');
  const model: ServedModel = {
    name: servedModel,
    contextTokens: maxModelLen,
    slots: whole('slots', options.slots ?? 4, 1),
  };
  const ctx: ChatContext = {
    flavor,
    servedModel,
    maxModelLen,
    promptCache: flavor.promptCache(model.slots),
    defaults: {
      ttftMs: whole('ttftMs', options.ttftMs ?? 0, 0),
      prefillUsPerToken: whole('prefillUsPerToken', options.prefillUsPerToken ?? 0, 0),
      itlMs: whole('itlMs', options.itlMs ?? 0, 0),
      outputTokens: whole('outputTokens', options.outputTokens ?? 24, 0),
      fault: checkFault(options.fault ?? NO_FAULT),
    },
    reasoningParser: options.reasoningParser ?? false,
    reasoningField: options.reasoningField ?? 'reasoning_content',
  };
  if (options.warmUp !== false) warmUp();
  const stats = new StatsCounter();
  const log = new RequestLog();
  const sockets = new Set<Socket>();
  let refusing = false;

  const server = createServer((req, res) => {
    if (refusing) {
      req.socket.destroy();
      return;
    }
    res.once('finish', () => {
      if (refusing) req.socket.end();
    });
    void route(req, res).catch((err: unknown) => answerError(res, err));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const text = method === 'POST' || method === 'PUT' ? await readBody(req) : undefined;
    const json = jsonOf(text, flavor);
    const entry: RecordedRequest = {
      method,
      path: req.url ?? '/',
      headers: { ...req.headers },
      body: 'value' in json ? json.value : text,
    };
    log.add(entry);
    const body = (): unknown => {
      if ('error' in json) throw json.error;
      return json.value;
    };

    if (options.apiKey !== undefined && flavor.guarded(path) && !flavor.authorized(req.headers, options.apiKey)) {
      sendJson(res, 401, flavor.unauthorized());
      return;
    }
    const key = `${method} ${path}`;
    if (method === 'POST' && flavor.chatPaths.includes(path)) return chat(req, res, body, entry);
    if (key === 'GET /sim/stats') return sendJson(res, 200, stats.snapshot());
    send(res, flavor.route(key, body, model) ?? flavor.notFound(method, path));
  }

  async function chat(
    req: IncomingMessage,
    res: ServerResponse,
    body: () => unknown,
    entry: RecordedRequest,
  ): Promise<void> {
    stats.track(res);
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    await handleChat(req, res, body, ctx, controller.signal, (ms) => {
      entry.firstTokenMs = ms;
    });
  }

  function answerError(res: ServerResponse, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const error =
      err instanceof SimError
        ? err
        : new SimError(500, `Internal sim error: ${err instanceof Error ? err.message : String(err)}`);
    sendJson(res, error.status, flavor.errorBody(error));
  }

  function listen(port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  }

  const port = await listen(whole('port', options.port ?? 0, 0));
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  return {
    url,
    port,
    stats: () => stats.snapshot(),
    until: (holds) => stats.until(holds),
    requests: () => log.list(),
    async setRefusing(next: boolean): Promise<void> {
      if (next === refusing) return;
      refusing = next;
      if (next) {
        server.close();
        server.closeIdleConnections();
        // Let clients see their pooled idle connections close, so their next request dials anew.
        await sleep(20);
      } else {
        await listen(port);
      }
    },
    close(): Promise<void> {
      refusing = true;
      return new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}

/** The body parsed once: for the request log, and for the handler (which may answer its error). */
function jsonOf(text: string | undefined, flavor: SimFlavor): { value: unknown } | { error: SimError } {
  try {
    return { value: flavor.parseBody(text ?? '') };
  } catch (err) {
    return { error: err instanceof SimError ? err : new SimError(400, String(err)) };
  }
}

function flavorNamed(name: SimFlavorName): SimFlavor {
  if (name === 'vllm') return vllmFlavor;
  if (name === 'llama-server') return llamaServerFlavor;
  throw new TypeError(`startSim: flavor must be 'vllm' or 'llama-server', got ${String(name)}`);
}

/** A route's answer: its JSON body, or an empty one. */
function send(res: ServerResponse, answer: RouteAnswer): void {
  if (answer.body !== undefined) {
    sendJson(res, answer.status, answer.body);
    return;
  }
  res.writeHead(answer.status, { 'content-length': 0 });
  res.end();
}

function whole(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new TypeError(`startSim: ${name} must be an integer ≥ ${min}, got ${value}`);
  return value;
}
