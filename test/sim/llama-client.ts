// Helpers for the tests of the sim's llama-server flavor: a sim playing llama-server, and its answers
// read as llama-server shapes them (sim/llama-completion.ts, sim/llama-stream.ts).
import type { Test } from 'tap';
import type { RunningSim, SimOptions } from '../../sim/server.js';
import { post, simFor, sseData } from './sim-client.js';

export function llamaSimFor(t: Test, options: SimOptions = {}): Promise<RunningSim> {
  return simFor(t, { flavor: 'llama-server', ...options });
}

export interface LlamaToolCallDelta {
  index: number;
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
}

export interface LlamaChunk {
  choices: Array<{
    finish_reason: string | null;
    index: number;
    delta: {
      role?: string;
      content?: string | null;
      reasoning_content?: string;
      tool_calls?: LlamaToolCallDelta[];
    };
  }>;
  created: number;
  id: string;
  model: string;
  system_fingerprint: string;
  object: string;
  usage?: LlamaUsage;
  timings?: Record<string, number>;
  error?: { code: number; message: string; type: string };
}

export interface LlamaUsage {
  completion_tokens: number;
  prompt_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export interface LlamaCompletion {
  choices: Array<{
    finish_reason: string;
    index: number;
    message: {
      role: string;
      content: string;
      reasoning_content?: string;
      tool_calls?: Array<{ type: string; function: { name: string; arguments: string }; id: string }>;
    };
  }>;
  created: number;
  model: string;
  system_fingerprint: string;
  object: string;
  usage: LlamaUsage;
  id: string;
  timings: Record<string, number>;
}

export async function llamaComplete(
  sim: RunningSim,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<LlamaCompletion> {
  const res = await post(sim, '/v1/chat/completions', body, headers);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`status ${res.status}: ${text}`);
  return JSON.parse(text) as LlamaCompletion;
}

export async function llamaStream(
  sim: RunningSim,
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ chunks: LlamaChunk[]; done: boolean; status: number; text: string }> {
  const res = await post(sim, '/v1/chat/completions', { ...body, stream: true }, headers);
  const text = await res.text();
  if (res.status !== 200) return { chunks: [], done: false, status: res.status, text };
  const data = sseData(text);
  return {
    chunks: data.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d) as LlamaChunk),
    done: data.at(-1) === '[DONE]',
    status: res.status,
    text,
  };
}

/** The text of the content deltas, joined. */
export function streamedContent(chunks: readonly LlamaChunk[]): string {
  return chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
}

export function streamedReasoning(chunks: readonly LlamaChunk[]): string {
  return chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? '').join('');
}

export const WEATHER_TOOL = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};
