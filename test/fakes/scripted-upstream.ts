// An upstream that answers POST /v1/chat/completions with what a test scripted: recorded chunks of a real
// server (streamed, one SSE event each, then [DONE]) or a recorded body. It keeps the request bodies it got,
// so a test can see what the gateway sent. Everything else is a 404. For shapes the sim does not play.
import { createServer, type Server } from 'node:http';
import { closeServer, listen, urlOf } from '../../http/listen.js';

/** The answer to one request: chunks to stream (the request asked for a stream), or a whole body. */
export type ScriptedAnswer = { chunks: object[] } | { body: object };

export interface ScriptedUpstream {
  /** Its OpenAI base URL (…/v1). */
  baseUrl: string;
  /** The chat request bodies it got, oldest first. */
  bodies: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startScriptedUpstream(
  answer: (body: Record<string, unknown>) => ScriptedAnswer,
): Promise<ScriptedUpstream> {
  const bodies: Array<Record<string, unknown>> = [];
  const server: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (part: Buffer) => parts.push(part));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"code":404,"message":"Not Found"}}');
        return;
      }
      const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as Record<string, unknown>;
      bodies.push(body);
      const scripted = answer(body);
      if ('body' in scripted) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(scripted.body));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(scripted.chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join('') + 'data: [DONE]\n\n');
    });
  });
  await listen(server, 0, '127.0.0.1');
  return { baseUrl: `${urlOf(server)}/v1`, bodies, close: () => closeServer(server) };
}

/**
 * A chunk as llama-server (llama.cpp de3ff81, `to_json_oaicompat_chat`) streams it: one choice, this delta;
 * with `timings_per_token` asked, the `timings` of the token it ends (prompt tokens processed, tokens generated).
 */
export function llamaChunk(delta: object, finishReason: string | null = null, timings?: [number, number]): object {
  return {
    choices: [{ finish_reason: finishReason, index: 0, delta }],
    created: 1_745_971_200,
    id: 'chatcmpl-LlamaRecorded',
    model: 'tiny-qwen3.gguf',
    system_fingerprint: 'b1-de3ff81',
    object: 'chat.completion.chunk',
    ...(timings === undefined ? {} : { timings: { cache_n: 0, prompt_n: timings[0], predicted_n: timings[1] } }),
  };
}

/** llama-server's usage chunk (`choices: []`), the last before [DONE]. */
export function llamaUsageChunk(prompt: number, completion: number): object {
  return {
    choices: [],
    created: 1_745_971_200,
    id: 'chatcmpl-LlamaRecorded',
    model: 'tiny-qwen3.gguf',
    system_fingerprint: 'b1-de3ff81',
    object: 'chat.completion.chunk',
    usage: { completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion },
  };
}

/** A whole streamed answer of llama-server: its role chunk, one chunk per delta, the finish chunk, the usage. */
export function llamaStream(deltas: object[], finishReason: string, usage: [number, number]): object[] {
  return [
    llamaChunk({ role: 'assistant', content: null }),
    ...deltas.map((delta) => llamaChunk(delta)),
    llamaChunk({}, finishReason),
    llamaUsageChunk(...usage),
  ];
}

/** llama-server's non-streamed answer with this message. */
export function llamaBody(message: object, finishReason: string, usage: [number, number]): object {
  const [prompt, completion] = usage;
  return {
    choices: [{ finish_reason: finishReason, index: 0, message: { role: 'assistant', ...message } }],
    created: 1_745_971_200,
    model: 'tiny-qwen3.gguf',
    system_fingerprint: 'b1-de3ff81',
    object: 'chat.completion',
    usage: { completion_tokens: completion, prompt_tokens: prompt, total_tokens: prompt + completion },
    id: 'chatcmpl-LlamaRecorded',
  };
}
