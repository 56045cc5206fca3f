// The reference upstream: an OpenAI-compatible server that behaves like vLLM serving Qwen3
// (see README.md for the routes, the generation rule, the options and the x-sim-* headers).
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { handleChat, type ChatContext } from './chat-handler.js';
import { SimError } from './errors.js';
import { checkFault, NO_FAULT, type SimFault } from './faults.js';
import { parseJson, readBody, sendError, sendJson } from './http-io.js';
import { modelList } from './models-handler.js';
import { PrefixCache } from './prefix-cache.js';
import { warmUp } from './qwen3-prompt.js';
import { RequestLog, type RecordedRequest } from './request-log.js';
import { StatsCounter, type SimStats } from './stats.js';
import { detokenize, tokenize } from './tokenize-handler.js';
import type { ReasoningField } from './usage.js';

export type { SimFault } from './faults.js';
export type { RecordedRequest } from './request-log.js';
export type { SimStats } from './stats.js';

export interface SimOptions {
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
  /** Delay between streamed tokens; default 0. */
  itlMs?: number;
  /** Length in tokens of a generated answer (its end-of-turn token included) unless max_tokens cuts it; default 24. */
  outputTokens?: number;
  /** Default 32768; longer prompts are a 400, like vLLM. */
  maxModelLen?: number;
  /** Applies to every chat request unless x-sim-fault overrides it. */
  fault?: SimFault;
  /**
   * Play `vllm serve … --reasoning-parser qwen3`: answers start with Qwen3's thinking (unless the request sets
   * `chat_template_kwargs.enable_thinking: false`), streamed as reasoning deltas; default false (no parser).
   */
  reasoningParser?: boolean;
  /** The reasoning field's name: `reasoning_content` (default; vLLM before 0.11, SGLang, llama-server) or `reasoning` (current vLLM). */
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
  const ctx: ChatContext = {
    servedModel,
    maxModelLen,
    prefixCache: new PrefixCache(),
    defaults: {
      ttftMs: whole('ttftMs', options.ttftMs ?? 0, 0),
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
    const json = jsonOf(text);
    log.add({ method, path: req.url ?? '/', headers: { ...req.headers }, body: 'value' in json ? json.value : text });
    const body = (): unknown => {
      if ('error' in json) throw json.error;
      return json.value;
    };

    if (
      options.apiKey !== undefined &&
      path.startsWith('/v1') &&
      req.headers.authorization !== `Bearer ${options.apiKey}`
    ) {
      sendJson(res, 401, { error: 'Unauthorized' });
      return;
    }
    switch (`${method} ${path}`) {
      case 'POST /v1/chat/completions':
        return chat(req, res, body);
      case 'POST /tokenize':
        return sendJson(res, 200, tokenize(body(), servedModel, maxModelLen));
      case 'POST /detokenize':
        return sendJson(res, 200, detokenize(body(), servedModel));
      case 'GET /v1/models':
        return sendJson(res, 200, modelList(servedModel, maxModelLen));
      case 'GET /health':
        res.writeHead(200, { 'content-length': 0 });
        res.end();
        return;
      case 'GET /sim/stats':
        return sendJson(res, 200, stats.snapshot());
      default: {
        const known = ['/v1/chat/completions', '/tokenize', '/detokenize', '/v1/models', '/health', '/sim/stats'];
        if (known.includes(path)) sendJson(res, 405, { detail: 'Method Not Allowed' });
        else sendJson(res, 404, { detail: 'Not Found' });
      }
    }
  }

  async function chat(req: IncomingMessage, res: ServerResponse, body: () => unknown): Promise<void> {
    stats.track(res);
    const controller = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) controller.abort();
    });
    await handleChat(req, res, body, ctx, controller.signal);
  }

  function answerError(res: ServerResponse, err: unknown): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    if (err instanceof SimError) sendError(res, err);
    else sendError(res, new SimError(500, `Internal sim error: ${err instanceof Error ? err.message : String(err)}`));
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

/** The body parsed once: for the request log, and for the handler (which may answer a 400). */
function jsonOf(text: string | undefined): { value: unknown } | { error: SimError } {
  try {
    return { value: parseJson(text ?? '') };
  } catch (err) {
    return { error: err instanceof SimError ? err : new SimError(400, String(err)) };
  }
}

function whole(name: string, value: number, min: number): number {
  if (!Number.isInteger(value) || value < min)
    throw new TypeError(`startSim: ${name} must be an integer ≥ ${min}, got ${value}`);
  return value;
}
