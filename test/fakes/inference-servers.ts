// What each inference server answers on the GET endpoints the gateway asks at start and on /ready, with
// each server's own shapes (and its own 404), from its source: llama.cpp de3ff81 (`get_res_props`,
// `get_res_models`, `get_health` in tools/server/server-context.cpp), vLLM (`/version`, `/health`,
// `ModelCard`), SGLang (`/model_info`, `/get_model_info`, `ModelCard`), TGI (`Info`), Ollama
// (`/api/version`, its OpenAI `/v1/models`), and a plain OpenAI-compatible server. Only these GETs, and
// llama-server's tokenize endpoints (`post_apply_template`, `post_tokenize`: a body without `content` is
// `{"tokens": []}`, as vLLM's /tokenize body gets there); chat goes to the sim. A test starts one on a
// loopback port and changes what it says as it goes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { closeServer, listen, urlOf } from '../../http/listen.js';

export type ServerKind = 'llama-server' | 'vllm' | 'sglang' | 'sglang-0.4' | 'tgi' | 'ollama' | 'openai';

export interface FakeOptions {
  /** The model as the server names it (default `Qwen/Qwen3-8B`). */
  model?: string;
  /** llama-server's n_ctx (per slot as it reports it), vLLM's and SGLang's max_model_len, TGI's max_total_tokens. */
  context?: number;
  /** llama-server's total_slots (default 4, `-np auto`). */
  slots?: number;
}

interface Answer {
  status: number;
  /** JSON, or a string sent as text/plain. */
  body?: unknown;
}

export interface FakeServer {
  /** Its OpenAI base URL (…/v1). */
  baseUrl: string;
  /** The requests it received: method, path, Authorization header, JSON body of a POST. */
  requests: Array<{ method: string; path: string; authorization: string | undefined; body?: unknown }>;
  /** llama-server answers 503 "Loading model" everywhere but /health's own 503 while this is true. */
  loading: boolean;
  /** Every request answered with this status instead (e.g. 500 for a broken server). */
  failing: number | undefined;
  close(): Promise<void>;
}

const CREATED = 1_745_971_200;

function routesOf(kind: ServerKind, options: Required<FakeOptions>): Record<string, Answer> {
  const { model, context, slots } = options;
  switch (kind) {
    case 'llama-server':
      return {
        '/health': { status: 200, body: { status: 'ok' } },
        '/props': {
          status: 200,
          body: {
            default_generation_settings: { params: { n_predict: -1, temperature: 0.8, top_k: 40 }, n_ctx: context },
            total_slots: slots,
            model_alias: model,
            model_path: `/models/${model}`,
            modalities: { vision: false, video: false, audio: false },
            endpoint_slots: true,
            endpoint_props: false,
            endpoint_metrics: false,
            chat_template: '{{ messages }}',
            bos_token: '',
            eos_token: '<|im_end|>',
            build_info: 'b1-de3ff81',
            is_sleeping: false,
          },
        },
        '/v1/models': {
          status: 200,
          body: {
            models: [{ name: model, model, modified_at: '', size: '', digest: '', type: 'model' }],
            object: 'list',
            data: [
              {
                id: model,
                aliases: [model],
                tags: [],
                object: 'model',
                created: CREATED,
                owned_by: 'llamacpp',
                meta: { vocab_type: 2, n_vocab: 151936, n_ctx: context, n_ctx_train: 40960, n_embd: 64 },
              },
            ],
          },
        },
      };
    case 'vllm':
      return {
        '/health': { status: 200 },
        '/version': { status: 200, body: { version: '0.11.0' } },
        '/v1/models': {
          status: 200,
          body: {
            object: 'list',
            data: [
              {
                id: model,
                object: 'model',
                created: CREATED,
                owned_by: 'vllm',
                root: model,
                parent: null,
                max_model_len: context,
                permission: [],
              },
            ],
          },
        },
      };
    case 'sglang':
    case 'sglang-0.4': {
      const modelInfo = {
        model_path: model,
        tokenizer_path: model,
        is_generation: true,
        preferred_sampling_params: null,
        weight_version: 'default',
        has_image_understanding: false,
        has_audio_understanding: false,
        model_type: 'qwen3',
        architectures: ['Qwen3ForCausalLM'],
      };
      return {
        '/health': { status: 200 },
        [kind === 'sglang' ? '/model_info' : '/get_model_info']: { status: 200, body: modelInfo },
        '/v1/models': {
          status: 200,
          body: {
            object: 'list',
            data: [
              { id: model, object: 'model', created: CREATED, owned_by: 'sglang', root: model, max_model_len: context },
            ],
          },
        },
      };
    }
    case 'tgi':
      return {
        '/health': { status: 200 },
        '/info': {
          status: 200,
          body: {
            model_id: model,
            model_sha: null,
            model_pipeline_tag: 'text-generation',
            max_concurrent_requests: 128,
            max_best_of: 2,
            max_stop_sequences: 4,
            max_input_tokens: context - 1,
            max_total_tokens: context,
            validation_workers: 2,
            max_client_batch_size: 4,
            router: 'text-generation-router',
            version: '3.3.6',
            sha: null,
            docker_label: null,
          },
        },
        '/v1/models': {
          status: 200,
          body: { object: 'list', data: [{ id: model, object: 'model', created: CREATED, owned_by: model }] },
        },
      };
    case 'ollama':
      return {
        '/': { status: 200, body: 'Ollama is running' },
        '/api/version': { status: 200, body: { version: '0.12.3' } },
        '/v1/models': {
          status: 200,
          body: { object: 'list', data: [{ id: 'qwen3:8b', object: 'model', created: CREATED, owned_by: 'library' }] },
        },
      };
    case 'openai':
      return {
        '/v1/models': {
          status: 200,
          body: { object: 'list', data: [{ id: model, object: 'model', created: CREATED, owned_by: 'openai' }] },
        },
      };
  }
}

/** Each server's own answer to a path it does not have. */
function notFound(kind: ServerKind): Answer {
  switch (kind) {
    case 'llama-server':
      return { status: 404, body: { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } } };
    case 'vllm':
    case 'sglang':
    case 'sglang-0.4':
    case 'openai':
      return { status: 404, body: { detail: 'Not Found' } };
    case 'tgi':
      return { status: 404 };
    case 'ollama':
      return { status: 404, body: '404 page not found' };
  }
}

/** One token per word: the count is what the test asks of, not the tokenizer. */
function llamaTokenizing(path: string, body: unknown): Answer | undefined {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (path === '/apply-template') {
    const messages = Array.isArray(fields.messages) ? (fields.messages as Array<Record<string, unknown>>) : [];
    const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
    const prompt = messages.map((m) => `<|im_start|>${text(m.role)}\n${text(m.content)}<|im_end|>\n`).join('');
    return { status: 200, body: { prompt: `${prompt}<|im_start|>assistant\n` } };
  }
  if (path === '/tokenize') {
    const content = fields.content;
    const words = typeof content === 'string' ? content.split(/\s+/).filter(Boolean) : [];
    return { status: 200, body: { tokens: words.map((_, index) => 100 + index) } };
  }
  return undefined;
}

async function textOf(req: IncomingMessage): Promise<string> {
  let text = '';
  req.setEncoding('utf8');
  for await (const chunk of req) text += chunk as string;
  return text;
}

const LOADING: Answer = {
  status: 503,
  body: { error: { code: 503, message: 'Loading model', type: 'unavailable_error' } },
};

export async function startInferenceServer(kind: ServerKind, options: FakeOptions = {}): Promise<FakeServer> {
  const routes = routesOf(kind, {
    model: options.model ?? 'Qwen/Qwen3-8B',
    context: options.context ?? 32768,
    slots: options.slots ?? 4,
  });
  const fake: FakeServer = {
    baseUrl: '',
    requests: [],
    loading: false,
    failing: undefined,
    close: () => closeServer(server),
  };
  const answerOf = (req: IncomingMessage, posted: unknown): Answer => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (fake.failing !== undefined) return { status: fake.failing, body: { error: 'failing' } };
    // llama-server answers every route 503 while it loads its model, /health included.
    if (kind === 'llama-server' && fake.loading) return LOADING;
    if (req.method === 'POST' && kind === 'llama-server') return llamaTokenizing(path, posted) ?? notFound(kind);
    return (req.method === 'GET' ? routes[path] : undefined) ?? notFound(kind);
  };
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const text = await textOf(req);
    const posted = req.method === 'POST' ? (JSON.parse(text || '{}') as unknown) : undefined;
    fake.requests.push({
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      authorization: req.headers.authorization,
      ...(posted !== undefined ? { body: posted } : {}),
    });
    const { status, body } = answerOf(req, posted);
    if (body === undefined) res.writeHead(status, { 'content-length': 0 }).end();
    else if (typeof body === 'string') res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(body);
    else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server: Server = createServer((req, res) => void answer(req, res));
  await listen(server, 0, '127.0.0.1');
  fake.baseUrl = `${urlOf(server)}/v1`;
  return fake;
}
