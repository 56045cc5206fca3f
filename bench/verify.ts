// Before measuring: does each target answer each scenario as the numbers assume (20 content chunks, paced really paced)?
// A full-chain target must also have run its chain: usage in a non-streamed answer, the rate-limit headers, and the
// request charged to the organization in its store (the meter).
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { requestBody, requestHeaders, type Scenario } from './scenarios.js';
import type { DialectName } from '../dialects/registry.js';
import { benchOrgSpend, targetUrl, type BenchStore, type Target } from './targets.js';
import { readSse } from '../test/kit/sse-reader.js';

export interface Check {
  target: string;
  scenario: string;
  ok: boolean;
  detail: string;
}

/** The shortest a paced answer can take: (chunks - 1) gaps of 5 ms, less some timer slack. */
const PACED_MIN_MS = 19 * 5 * 0.9;

/** Per dialect: the SSE event that carries one content chunk, and the events a complete stream ends with. */
const STREAM_SHAPE: Readonly<Record<Exclude<DialectName, 'chat'>, { content: string; last: readonly string[] }>> = {
  messages: { content: 'text_delta', last: ['message_stop'] },
  responses: { content: 'response.output_text.delta', last: ['response.completed', 'response.incomplete'] },
};

/** How long the meter may take to write a charge to the store after the answer. */
const METERED_WITHIN_MS = 3000;

export async function verifyTarget(target: Target, scenario: Scenario): Promise<Check> {
  const check = (ok: boolean, detail: string): Check => ({ target: target.name, scenario: scenario.name, ok, detail });
  if (target.store === undefined || !target.chain?.includes('meter')) return verifyAnswer(target, scenario);
  // The full chain: the answer as for any target, then its chain's marks.
  const before = await benchOrgSpend(target.store);
  const answer = await verifyAnswer(target, scenario);
  if (!answer.ok) return answer;
  const charged = await chargedSince(target.store, before.spentMicros);
  if (charged <= 0)
    return check(
      false,
      `${answer.detail}; but nothing charged to the organization within ${METERED_WITHIN_MS} ms (the meter did not run?)`,
    );
  return check(true, `${answer.detail}; charged ${charged} micro-credits`);
}

/** Polls the store until the organization's lifetime spend passes `spentBefore`; the difference (0: none). */
async function chargedSince(store: BenchStore, spentBefore: number): Promise<number> {
  const deadline = performance.now() + METERED_WITHIN_MS;
  for (;;) {
    const { spentMicros } = await benchOrgSpend(store);
    if (spentMicros > spentBefore || performance.now() > deadline) return spentMicros - spentBefore;
    await sleep(100);
  }
}

async function verifyAnswer(target: Target, scenario: Scenario): Promise<Check> {
  const start = performance.now();
  const response = await request(targetUrl(target), {
    method: 'POST',
    headers: requestHeaders(scenario, target.headers),
    body: requestBody(target.dialect, scenario, target.model),
  });
  const text = await response.body.text();
  const elapsedMs = performance.now() - start;
  const check = (ok: boolean, detail: string): Check => ({ target: target.name, scenario: scenario.name, ok, detail });
  if (response.statusCode !== 200) return check(false, `status ${response.statusCode}: ${text.slice(0, 200)}`);
  const fullChain = target.store !== undefined;
  if (fullChain && target.chain?.includes('ratelimit')) {
    const limitHeader = Object.keys(response.headers).find((name) => name.endsWith('ratelimit-requests-limit'));
    if (limitHeader === undefined)
      return check(
        false,
        `no *ratelimit-requests-limit header (the ratelimit plugin did not run?); headers: ${Object.keys(response.headers).join(', ')}`,
      );
  }
  try {
    if (!scenario.stream) {
      const body = JSON.parse(text) as unknown;
      const content = answerText(target.dialect, body);
      const ok = typeof content === 'string' && content.length > 0;
      if (!fullChain) return check(ok, `content ${JSON.stringify(content?.slice(0, 40))}`);
      const usage = (body as { usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } }).usage;
      const counted =
        typeof usage?.prompt_tokens === 'number' &&
        typeof usage.completion_tokens === 'number' &&
        usage.completion_tokens > 0;
      return check(ok && counted, `content ${JSON.stringify(content?.slice(0, 40))}, usage ${JSON.stringify(usage)}`);
    }
    const { chunks, unit, unended } = countChunks(target.dialect, text);
    const paced = scenario.simHeaders['x-sim-itl-ms'] !== '0';
    const timing = `${elapsedMs.toFixed(1)} ms`;
    if (chunks !== scenario.chunks) return check(false, `${chunks} ${unit}, expected ${scenario.chunks}`);
    if (unended !== undefined) return check(false, `${chunks} ${unit}, but ${unended}`);
    if (paced && elapsedMs < PACED_MIN_MS)
      return check(false, `${chunks} ${unit} in ${timing}: not paced (x-sim-itl-ms not applied?)`);
    return check(true, `${chunks} ${unit} in ${timing}`);
  } catch (error) {
    return check(
      false,
      `unreadable answer (${error instanceof Error ? error.message : String(error)}): ${text.slice(0, 200)}`,
    );
  }
}

/** The answer's text in a non-streamed response of the dialect, or undefined when it is not where the dialect puts it. */
function answerText(dialect: DialectName, body: unknown): string | undefined {
  switch (dialect) {
    case 'chat':
      return (body as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message?.content;
    case 'messages': {
      const message = body as { type?: string; content?: Array<{ type?: string; text?: string }> };
      return message.type === 'message' ? message.content?.find((block) => block.type === 'text')?.text : undefined;
    }
    case 'responses': {
      const response = body as { object?: string; output_text?: string };
      return response.object === 'response' ? response.output_text : undefined;
    }
  }
}

/**
 * Chat: `data:` events whose first choice carries non-empty delta content (the stream needs no end marker here).
 * Messages: `content_block_delta` events with a `text_delta`, and a `message_stop`.
 * Responses: `response.output_text.delta` events, and a `response.completed` or `response.incomplete` last.
 */
function countChunks(dialect: DialectName, text: string): { chunks: number; unit: string; unended?: string } {
  const events = readSse(text);
  if (dialect === 'chat') {
    let chunks = 0;
    for (const { data } of events) {
      if (data === '[DONE]') continue;
      const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string | null } }> };
      const content = chunk.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content.length > 0) chunks += 1;
    }
    return { chunks, unit: 'content chunks' };
  }
  const shape = STREAM_SHAPE[dialect];
  let chunks = 0;
  for (const { event, data } of events) {
    const payload = JSON.parse(data) as { type?: string; delta?: { type?: string } };
    const name = event ?? payload.type;
    if (
      dialect === 'messages'
        ? name === 'content_block_delta' && payload.delta?.type === shape.content
        : name === shape.content
    )
      chunks += 1;
  }
  const last = events.at(-1)?.event ?? undefined;
  const unit = `${shape.content} events`;
  if (last !== undefined && shape.last.includes(last)) return { chunks, unit };
  return { chunks, unit, unended: `the stream ends with ${last ?? 'no named event'}, not ${shape.last.join(' or ')}` };
}
