// llama-server's chat stream (server_task_result_cmpl_partial/final::to_json_oaicompat_chat*), chunk
// for chunk: the first generated token sends `{"role":"assistant","content":null}` and then its own
// deltas; every later token sends its deltas (none for a token that adds nothing visible: markup, the
// end-of-turn token); the end is a chunk with `delta: {}` and the finish reason (no `stop_reason`),
// then, with `stream_options.include_usage`, the usage chunk (`choices: []`), then `data: [DONE]`. The
// last chunk before [DONE] carries the slot's `timings`, and so does the last chunk of the token that
// completed a stop string; with `timings_per_token: true` so does the last chunk of every token. Chunks have no `logprobs`, and their fields come in llama-server's order.
import type { StreamChunk } from './chat-stream.js';
import type { ChatAnswer } from './flavor.js';
import type { LlamaAnswer, LlamaDelta } from './llama-answer.js';
import { answerTimings, llamaUsage, type LlamaUsage } from './llama-completion.js';
import { LLAMA_BUILD_INFO } from './llama-server-info.js';
import type { LlamaTimings } from './llama-timings.js';

type Delta = LlamaDelta | { role: 'assistant'; content: null } | Record<string, never>;

interface LlamaChunk {
  choices: Array<{ finish_reason: string | null; index: number; delta: Delta }>;
  created: number;
  id: string;
  model: string;
  system_fingerprint: string;
  object: 'chat.completion.chunk';
  usage?: LlamaUsage;
  timings?: LlamaTimings;
}

export function llamaStreamChunks(answer: ChatAnswer, view: LlamaAnswer): StreamChunk[] {
  const { meta, request } = answer;
  const chunk = (choices: LlamaChunk['choices']): LlamaChunk => ({
    choices,
    created: meta.created,
    id: meta.id,
    model: meta.model,
    system_fingerprint: LLAMA_BUILD_INFO,
    object: 'chat.completion.chunk',
  });
  const deltaChunk = (delta: Delta, finish: string | null = null): LlamaChunk =>
    chunk([{ finish_reason: finish, index: 0, delta }]);
  const sse = (body: LlamaChunk | string): string =>
    `data: ${typeof body === 'string' ? body : JSON.stringify(body)}\n\n`;

  const out: StreamChunk[] = [];
  let lastSent = 0;
  view.steps.forEach((deltas, i) => {
    const bodies = deltas.map((delta) => deltaChunk(delta));
    if (i === 0) bodies.unshift(deltaChunk({ role: 'assistant', content: null }));
    const lastBody = bodies.at(-1);
    if (lastBody === undefined) return;
    // A stop string stops the slot before the token that completes it is sent, so that one has its timings too.
    const stopped = i === view.steps.length - 1 && answer.gen.stopReason !== null;
    if (request.timingsPerToken || stopped) lastBody.timings = answerTimings(answer, i + 1);
    // The first token leaves after the TTFT; a token that sent nothing still took its ITL.
    const delayMs = i === 0 ? answer.ttftMs : answer.itlMs * (i - lastSent);
    bodies.forEach((body, k) => out.push({ data: sse(body), delayMs: k === 0 ? delayMs : 0 }));
    lastSent = i;
  });
  const end = [deltaChunk({}, view.finishReason)];
  if (request.includeUsage) end.push({ ...chunk([]), usage: llamaUsage(meta, answer.gen.ids.length) });
  const final = end.at(-1);
  if (final) final.timings = answerTimings(answer);
  // The end goes out when the last token was generated, which may have sent nothing itself.
  const endDelayMs = answer.itlMs * (view.steps.length - 1 - lastSent);
  end.forEach((body, k) => out.push({ data: sse(body), delayMs: k === 0 ? endDelayMs : 0 }));
  out.push({ data: sse('[DONE]'), delayMs: 0 });
  return out;
}
