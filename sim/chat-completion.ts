// The non-streaming answer: vLLM's ChatCompletionResponse, all its fields, sent after the TTFT.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { SimFault } from './faults.js';
import type { FullToolCall, Generation } from './generation.js';
import { delay, untilAborted } from './http-io.js';
import { cutConnection } from './cut-connection.js';
import { usage, type ResponseMeta, type Usage } from './usage.js';

export interface ChatCompletionBody {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      refusal: null;
      annotations: null;
      audio: null;
      function_call: null;
      tool_calls: FullToolCall[];
      /** One of the two, as the server names it (ResponseMeta.reasoningField). */
      reasoning_content?: string | null;
      reasoning?: string | null;
    };
    logprobs: null;
    finish_reason: string;
    stop_reason: string | null;
  }>;
  service_tier: null;
  system_fingerprint: null;
  usage: Usage;
  prompt_logprobs: null;
  kv_transfer_params: null;
}

export function completionBody(gen: Generation, meta: ResponseMeta): ChatCompletionBody {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: gen.content,
          refusal: null,
          annotations: null,
          audio: null,
          function_call: null,
          tool_calls: gen.toolCalls,
          [meta.reasoningField]: gen.reasoning,
        },
        logprobs: null,
        finish_reason: gen.finishReason,
        stop_reason: gen.stopReason,
      },
    ],
    service_tier: null,
    system_fingerprint: null,
    usage: usage(meta.promptTokens, gen.ids.length, meta.cachedTokens, meta.usageOverride),
    prompt_logprobs: null,
    kv_transfer_params: null,
  };
}

/** Sends the body after `ttftMs`; true when it was sent whole. */
export async function sendCompletion(
  res: ServerResponse,
  socket: Socket,
  /** The server's body (vLLM's ChatCompletionBody, or llama-server's). */
  body: object,
  ttftMs: number,
  fault: SimFault,
  signal: AbortSignal,
): Promise<boolean> {
  if (!(await delay(ttftMs, signal))) return false;
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length });
  if (fault.kind === 'cut' || fault.kind === 'stall') {
    // Here afterChunks counts bytes: the body breaks off inside the JSON.
    const part = bytes.subarray(0, Math.min(fault.afterChunks ?? 0, bytes.length - 1));
    res.write(part);
    if (fault.kind === 'cut') cutConnection(socket);
    else await untilAborted(signal);
    return false;
  }
  res.end(bytes);
  return true;
}
