// Before measuring: does each target answer each scenario as the numbers assume (20 content chunks, paced really paced)?
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { requestBody, requestHeaders, type Dialect, type Scenario } from './scenarios.js';
import { targetUrl, type Target } from './targets.js';

export interface Check {
  target: string;
  scenario: string;
  ok: boolean;
  detail: string;
}

/** The shortest a paced answer can take: (chunks - 1) gaps of 5 ms, less some timer slack. */
const PACED_MIN_MS = 19 * 5 * 0.9;

/** Per dialect: the SSE event that carries one content chunk, and the events a complete stream ends with. */
const STREAM_SHAPE: Readonly<Record<Exclude<Dialect, 'chat'>, { content: string; last: readonly string[] }>> = {
  messages: { content: 'text_delta', last: ['message_stop'] },
  responses: { content: 'response.output_text.delta', last: ['response.completed', 'response.incomplete'] },
};

export async function verifyTarget(target: Target, scenario: Scenario): Promise<Check> {
  const start = performance.now();
  const response = await request(targetUrl(target), { method: 'POST', headers: requestHeaders(scenario), body: requestBody(target.dialect, scenario, target.model) });
  const text = await response.body.text();
  const elapsedMs = performance.now() - start;
  const check = (ok: boolean, detail: string): Check => ({ target: target.name, scenario: scenario.name, ok, detail });
  if (response.statusCode !== 200) return check(false, `status ${response.statusCode}: ${text.slice(0, 200)}`);
  try {
    if (!scenario.stream) {
      const content = answerText(target.dialect, JSON.parse(text));
      return check(typeof content === 'string' && content.length > 0, `content ${JSON.stringify(content?.slice(0, 40))}`);
    }
    const { chunks, unit, unended } = countChunks(target.dialect, text);
    const paced = scenario.simHeaders['x-sim-itl-ms'] !== '0';
    const timing = `${elapsedMs.toFixed(1)} ms`;
    if (chunks !== scenario.chunks) return check(false, `${chunks} ${unit}, expected ${scenario.chunks}`);
    if (unended !== undefined) return check(false, `${chunks} ${unit}, but ${unended}`);
    if (paced && elapsedMs < PACED_MIN_MS) return check(false, `${chunks} ${unit} in ${timing}: not paced (x-sim-itl-ms not applied?)`);
    return check(true, `${chunks} ${unit} in ${timing}`);
  } catch (error) {
    return check(false, `unreadable answer (${error instanceof Error ? error.message : String(error)}): ${text.slice(0, 200)}`);
  }
}

/** The answer's text in a non-streamed response of the dialect, or undefined when it is not where the dialect puts it. */
function answerText(dialect: Dialect, body: unknown): string | undefined {
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

interface SseEvent {
  event: string | undefined;
  data: string;
}

/**
 * Chat: `data:` events whose first choice carries non-empty delta content (the stream needs no end marker here).
 * Messages: `content_block_delta` events with a `text_delta`, and a `message_stop`.
 * Responses: `response.output_text.delta` events, and a `response.completed` or `response.incomplete` last.
 */
function countChunks(dialect: Dialect, text: string): { chunks: number; unit: string; unended?: string } {
  const events = parseSse(text);
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
    if (dialect === 'messages' ? name === 'content_block_delta' && payload.delta?.type === shape.content : name === shape.content) chunks += 1;
  }
  const last = events.at(-1)?.event;
  const unit = `${shape.content} events`;
  if (last !== undefined && shape.last.includes(last)) return { chunks, unit };
  return { chunks, unit, unended: `the stream ends with ${last ?? 'no named event'}, not ${shape.last.join(' or ')}` };
}

/** Server-sent events: blocks separated by a blank line, each with an optional `event:` line and `data:` lines. */
function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trim());
    }
    if (data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}
