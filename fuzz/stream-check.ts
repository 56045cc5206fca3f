// What a streamed 200 must look like, read as a client reads it: the dialect's first event, `event:` equal
// to `data.type` (messages, responses), `sequence_number` rising from 0 (responses), every data line JSON,
// error events in the dialect's shape, and the dialect's last event at the end.
import type { CaseFacts } from './facts.js';
import { ROUTES, type RouteName } from './routes.js';
import { parseFrames, type Frame } from './sse-frames.js';

type Json = Record<string, unknown>;
type Report = (kind: string, detail: string) => void;

const FIRST_EVENT: Record<RouteName, string | undefined> = {
  chat: 'message_start',
  messages: 'message_start',
  count_tokens: undefined,
  responses: 'response.created',
};

export function checkStream(route: RouteName, facts: CaseFacts, text: string, fail: Report, note: Report): void {
  const frames = parseFrames(text).filter((frame) => frame.event !== 'ping');
  const openaiChat = route === 'chat' && facts.wire === 'openai';
  const dialect = ROUTES[route].errors;
  let sequence = 0;
  frames.forEach((frame, index) => {
    if (frame.data === '[DONE]') return;
    const data = parseObject(frame.data);
    if (data === undefined) {
      fail('stream-bad-data', `event ${frame.event ?? '(data only)'}: ${frame.data.slice(0, 120)}`);
      return;
    }
    if (index === 0 && !openaiChat && frame.event !== FIRST_EVENT[route] && frame.event !== 'error')
      fail('stream-start', `first event ${frame.event ?? '(data only)'}`);
    if ((route === 'messages' || route === 'responses') && frame.event !== data.type)
      fail('stream-event-name', `event ${frame.event ?? '(none)'} carries type ${String(data.type)}`);
    if (route === 'responses' && frame.event !== 'error') {
      if (data.sequence_number !== sequence)
        fail(
          'stream-sequence',
          `event ${index} (${frame.event}) has sequence_number ${String(data.sequence_number)}, not ${sequence}`,
        );
      sequence++;
    }
    if (frame.event === 'error' || (frame.event === undefined && data.error !== undefined)) {
      const error = data.error as Json | undefined;
      note('stream-error-event', String(error?.message ?? data.message).slice(0, 160));
      const problem = dialect === 'anthropic' ? anthropicErrorShape(data) : openaiErrorShape(error);
      if (problem !== undefined) fail('stream-error-shape', `${problem}: ${frame.data.slice(0, 160)}`);
    }
  });
  const last = frames.at(-1);
  if (last === undefined || !isLastEvent(route, openaiChat, last)) {
    fail(
      'stream-unterminated',
      `last event ${last === undefined ? '(none)' : `${last.event ?? '(data only)'} ${last.data.slice(0, 80)}`} of ${frames.length}`,
    );
  }
}

function isLastEvent(route: RouteName, openaiChat: boolean, last: Frame): boolean {
  if (openaiChat)
    return last.data === '[DONE]' || (last.event === undefined && parseObject(last.data)?.error !== undefined);
  return ROUTES[route].streamEnds.includes(last.event ?? '');
}

/** `{type:'error', error:{type:string, message:string}}`, or what is wrong with it. */
export function anthropicErrorShape(body: Json): string | undefined {
  const error = body.error as Json | undefined;
  if (body.type !== 'error') return "type is not 'error'";
  if (typeof error !== 'object' || error === null) return 'no error object';
  if (typeof error.type !== 'string' || typeof error.message !== 'string')
    return 'error.type or error.message is not a string';
  return undefined;
}

/** `{message:string, type:string, param:string|null, code:string|null}` (the `error` member), or what is wrong with it. */
export function openaiErrorShape(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return 'no error object';
  const { message, type, param, code } = error as Json;
  if (typeof message !== 'string' || typeof type !== 'string') return 'error.message or error.type is not a string';
  if (!(param === null || typeof param === 'string') || !(code === null || typeof code === 'string'))
    return 'error.param or error.code missing or not a string or null';
  return undefined;
}

export function parseObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}
