// The routing benchmark's workload (routing.ts): multi-turn conversations, each with a long system prompt of its
// own, each turn resending the whole conversation plus a new user message, streamed, as an agent does. Every text is
// drawn from a PRNG seeded by the conversation and the turn, so every run sends the same requests. One turn is
// measured client-side: the time to the first content delta, and the prompt and cached prompt tokens of its usage.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { SseReader } from '../proxy/stream/sse.js';
import { prng } from '../sim/prng.js';

export interface Workload {
  conversations: number;
  turns: number;
  /** Words of each conversation's system prompt (about one token each). */
  systemWords: number;
  /** Words of each user message. */
  userWords: number;
  /** Pause between an answer and the next turn: from half to one and a half times this, seeded. */
  thinkMs: number;
  /** How a conversation names itself to the router; `none`: only its opening (system + first user message) does. */
  key: AffinityKey;
}

export type AffinityKey = 'none' | 'header' | 'prompt_cache_key';

export interface TurnResult {
  conversation: number;
  turn: number;
  ok: boolean;
  /** Why it failed, when it did. */
  failure?: string;
  /** From the request to its first content delta, ms; NaN when none came. */
  ttftMs: number;
  promptTokens: number;
  cachedTokens: number;
}

interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

interface StreamChunk {
  choices?: Array<{ delta?: { content?: string | null } }>;
  usage?: { prompt_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null;
  error?: unknown;
}

/** Ordinary words, about one Qwen3 token each with their leading space. */
const WORDS = `time year people way day man thing woman life child world school state family student group country
problem hand part place case week company system program question work government number night point home water
room mother area money story fact month lot right study book eye job word business issue side kind head house
service friend father power hour game line end member law car city community name president team minute idea
kid body information back parent face others level office door health person art war history party result change
morning reason research girl guy moment air teacher force education`
  .split(/\s+/)
  .filter((word) => word.length > 0);

/** Runs every conversation to its end; `onTurn` sees each turn as it ends. */
export async function runConversations(
  url: string,
  headers: Record<string, string>,
  model: string,
  workload: Workload,
  onTurn: (result: TurnResult) => void,
): Promise<void> {
  await Promise.all(
    Array.from({ length: workload.conversations }, (_, conversation) =>
      runConversation(url, headers, model, workload, conversation, onTurn),
    ),
  );
}

async function runConversation(
  url: string,
  headers: Record<string, string>,
  model: string,
  workload: Workload,
  conversation: number,
  onTurn: (result: TurnResult) => void,
): Promise<void> {
  const random = prng(0x5eed + conversation);
  const pause = (): number => workload.thinkMs * (0.5 + random());
  const messages: Message[] = [
    { role: 'system', content: `Conversation ${conversation}. ${words(random, workload.systemWords)}` },
  ];
  // The conversations start spread over one pause, not in step.
  await sleep(pause());
  for (let turn = 0; turn < workload.turns; turn++) {
    messages.push({ role: 'user', content: words(random, workload.userWords) });
    const session = `bench-conversation-${conversation}`;
    const body: Record<string, unknown> = {
      model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
    };
    if (workload.key === 'prompt_cache_key') body.prompt_cache_key = session;
    const turnHeaders = workload.key === 'header' ? { ...headers, session_id: session } : headers;
    const { result, answer } = await streamTurn(url, turnHeaders, body);
    onTurn({ conversation, turn, ...result });
    // A failed turn keeps what came of its answer: the client retries nothing.
    messages.push({ role: 'assistant', content: answer });
    if (turn + 1 < workload.turns) await sleep(pause());
  }
}

/** One streamed turn: its measures and the answer's text. */
async function streamTurn(
  url: string,
  headers: Record<string, string>,
  body: Record<string, unknown>,
): Promise<{ result: Omit<TurnResult, 'conversation' | 'turn'>; answer: string }> {
  const result: Omit<TurnResult, 'conversation' | 'turn'> = {
    ok: false,
    ttftMs: Number.NaN,
    promptTokens: 0,
    cachedTokens: 0,
  };
  let answer = '';
  let done = false;
  const started = performance.now();
  const onMessage = (data: string): void => {
    if (data === '[DONE]') {
      done = true;
      return;
    }
    const chunk = JSON.parse(data) as StreamChunk;
    if (chunk.error !== undefined) throw new Error(`error event: ${JSON.stringify(chunk.error)}`);
    const content = chunk.choices?.[0]?.delta?.content;
    if (content) {
      if (Number.isNaN(result.ttftMs)) result.ttftMs = performance.now() - started;
      answer += content;
    }
    if (chunk.usage) {
      result.promptTokens = chunk.usage.prompt_tokens ?? 0;
      result.cachedTokens = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
    }
  };
  try {
    const response = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    if (response.statusCode !== 200) {
      const text = await response.body.text();
      return { result: { ...result, failure: `status ${response.statusCode}: ${text.slice(0, 200)}` }, answer };
    }
    const reader = new SseReader((message) => onMessage(message.data), 1 << 20);
    for await (const bytes of response.body) reader.feed(bytes as Buffer);
    reader.end();
    if (!done) return { result: { ...result, failure: 'the stream ended without [DONE]' }, answer };
    return { result: { ...result, ok: true }, answer };
  } catch (error) {
    return { result: { ...result, failure: error instanceof Error ? error.message : String(error) }, answer };
  }
}

function words(random: () => number, count: number): string {
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(WORDS[Math.floor(random() * WORDS.length)] ?? 'word');
  return `${out.join(' ')}.`;
}
