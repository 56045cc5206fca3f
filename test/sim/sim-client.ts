// Helpers for the sim's tests: a sim per test, JSON posts, and the data of a chat stream.
import type { Test } from 'tap';
import { startSim, type RunningSim, type SimOptions } from '../../sim/server.js';
import { readSse } from '../kit/sse-reader.js';

export const MODEL = 'Qwen/Qwen3-8B';

export async function simFor(t: Test, options: SimOptions = {}): Promise<RunningSim> {
  const sim = await startSim(options);
  t.teardown(() => sim.close());
  return sim;
}

export async function post(
  sim: RunningSim,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return fetch(sim.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    signal,
  });
}

export async function postJson<T>(
  sim: RunningSim,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: T }> {
  const res = await post(sim, path, body, headers);
  return { status: res.status, body: (await res.json()) as T };
}

/** The `data:` payloads of an SSE body, in order (the final `[DONE]` included as a string). */
export function sseData(text: string): string[] {
  return readSse(text).map((frame) => {
    if (frame.event !== null) throw new Error(`not an SSE data line: event ${frame.event}`);
    return frame.data;
  });
}

export interface Chunk {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{
    index: number;
    delta: {
      role?: string;
      content?: string;
      reasoning_content?: string;
      reasoning?: string;
      tool_calls?: Array<{
        id?: string;
        type?: string;
        index: number;
        function: { name?: string; arguments?: string };
      }>;
    };
    logprobs: null;
    finish_reason: string | null;
    stop_reason?: string | null;
  }>;
  usage?: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details?: { cached_tokens: number };
  };
}

/** Streams a chat request and returns its parsed chunks and whether [DONE] came. */
export async function streamChat(
  sim: RunningSim,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ chunks: Chunk[]; done: boolean; status: number; contentType: string | null }> {
  const res = await post(sim, '/v1/chat/completions', { model: MODEL, ...body, stream: true }, headers);
  const text = await res.text();
  const data = sseData(text);
  const done = data.at(-1) === '[DONE]';
  const chunks = data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as Chunk);
  return { chunks, done, status: res.status, contentType: res.headers.get('content-type') };
}

export interface Completion {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: string;
      content: string | null;
      tool_calls: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
      reasoning_content?: string | null;
      reasoning?: string | null;
    };
    logprobs: null;
    finish_reason: string;
    stop_reason: string | null;
  }>;
  usage: {
    prompt_tokens: number;
    completion_tokens: number;
    total_tokens: number;
    prompt_tokens_details: { cached_tokens: number };
  };
}

export async function complete(
  sim: RunningSim,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<Completion> {
  const { status, body: out } = await postJson<Completion>(
    sim,
    '/v1/chat/completions',
    { model: MODEL, ...body },
    headers,
  );
  if (status !== 200) throw new Error(`status ${status}: ${JSON.stringify(out)}`);
  return out;
}
