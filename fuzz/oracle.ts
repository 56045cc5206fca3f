// The oracle: what every answer to a fuzzed request must satisfy. No 5xx; every error in the route's dialect
// shape; streams that end with the dialect's last event; no 2xx for a request that could not be served
// (no valid key, a body that is not JSON or not the type it claims, over the limit); a few spec rules
// (count_tokens never 402 or 429, a 429 has retry-after). Notes are worth a look but are not failures.
import type { CaseFacts } from './facts.js';
import type { FuzzCase } from './fuzz-case.js';
import { ROUTES, type ErrorDialect, type RouteName } from './routes.js';
import type { Answer, Outcome } from './send.js';
import { parseFrames } from './sse-frames.js';

export interface Finding {
  /** A short stable name of the class of problem, e.g. `5xx` or `error-shape`. */
  kind: string;
  severity: 'failure' | 'note';
  detail: string;
}

type Json = Record<string, unknown>;

/** Characters a message should not carry: C0 controls (bar tab and newlines), DEL, and U+FFFD. */
const BINARY_ECHO = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/;

export function judge(fuzzCase: FuzzCase, facts: CaseFacts, outcome: Outcome): Finding[] {
  const findings: Finding[] = [];
  const fail = (kind: string, detail: string): void => void findings.push({ kind, severity: 'failure', detail });
  const note = (kind: string, detail: string): void => void findings.push({ kind, severity: 'note', detail });
  const { answer } = outcome;
  if (answer === undefined) {
    fail('no-answer', outcome.error ?? 'no answer');
    return findings;
  }
  const { status } = answer;
  const route = fuzzCase.route;
  if (status >= 500) fail('5xx', `${status} ${errorMessage(answer) ?? preview(answer.body)}`);
  else if (status < 200 || (status >= 300 && status < 400)) fail('unexpected-status', String(status));

  if (status >= 200 && status < 300) {
    if (!facts.validKey) fail('served-without-valid-key', `${status} without a valid key`);
    if (facts.notJsonType) fail('served-non-json-content-type', `${status} for content-type ${fuzzCase.headers['content-type']}`);
    if (facts.undecodable) fail('served-undecodable-content-encoding', `${status} for content-encoding ${fuzzCase.headers['content-encoding']} on bytes that do not decode so`);
    else if (facts.overLimit) fail('served-over-limit', `${status} for a body over the limit`);
    else if (facts.body === 'not-json') fail('served-malformed-json', `${status} for a body that is not JSON`);
    if (facts.body === 'json-not-utf8') note('served-invalid-utf8', `${status} for a JSON body that is not UTF-8`);
    if (facts.wire === 'invalid') fail('served-invalid-wire', `${status} for x-gateway-wire ${JSON.stringify(fuzzCase.headers['x-gateway-wire'])}`);
    checkSuccess(route, facts, answer, fail, note);
  } else if (status >= 400) {
    checkError(ROUTES[route].errors, answer, fail);
    const message = errorMessage(answer) ?? '';
    if (facts.sentBytesNotJson && BINARY_ECHO.test(message)) fail('echoes-binary', `${status} message echoes bytes of the body: ${JSON.stringify(message.slice(0, 120))}`);
    if (status === 401 && ROUTES[route].errors === 'anthropic' && facts.bearerOnly && /invalid x-api-key/i.test(message)) fail('401-names-x-api-key', `the key came by Bearer; the message says ${JSON.stringify(message)}`);
    if (route === 'count_tokens' && (status === 402 || status === 429)) fail(`count-tokens-${status}`, 'count_tokens is never billed nor rate limited (spec rules 8, 7.3)');
    if (status === 429 && answer.headers['retry-after'] === undefined) fail('429-without-retry-after', 'no retry-after header');
  }
  return findings;
}

function checkSuccess(route: RouteName, facts: CaseFacts, answer: Answer, fail: (kind: string, detail: string) => void, note: (kind: string, detail: string) => void): void {
  const type = String(answer.headers['content-type'] ?? '');
  const text = answer.body.toString('utf8');
  if (type.startsWith('text/event-stream')) {
    checkStream(route, facts, text, fail, note);
    return;
  }
  const body = parseObject(text);
  if (body === undefined || !ROUTES[route].isAnswer(body)) fail('bad-success-body', `${answer.status} ${type}: ${preview(answer.body)}`);
}

function checkStream(route: RouteName, facts: CaseFacts, text: string, fail: (kind: string, detail: string) => void, note: (kind: string, detail: string) => void): void {
  const frames = parseFrames(text).filter((frame) => frame.event !== 'ping');
  const dialect = ROUTES[route].errors;
  for (const frame of frames) {
    if (frame.data === '[DONE]') continue;
    const data = parseObject(frame.data);
    if (data === undefined) {
      fail('stream-bad-data', `event ${frame.event ?? '(data only)'}: ${frame.data.slice(0, 120)}`);
      continue;
    }
    const isError = frame.event === 'error' || (frame.event === undefined && data.error !== undefined);
    if (!isError) continue;
    note('stream-error-event', String(dialect === 'anthropic' ? (data.error as Json | undefined)?.message : ((data.error as Json | undefined)?.message ?? data.message)).slice(0, 160));
    const shaped = dialect === 'anthropic' ? anthropicShape(data) : openaiShape(data.error);
    if (shaped !== undefined) fail('stream-error-shape', `${shaped}: ${frame.data.slice(0, 160)}`);
  }
  const last = frames.at(-1);
  const dataOnlyError = last !== undefined && last.event === undefined && parseObject(last.data)?.error !== undefined;
  const ended = last === undefined
    ? false
    : route === 'chat' && facts.wire === 'openai'
      ? last.data === '[DONE]' || dataOnlyError
      : ROUTES[route].streamEnds.includes(last.event ?? '');
  if (!ended) fail('stream-unterminated', `last event ${last === undefined ? '(none)' : `${last.event ?? '(data only)'} ${last.data.slice(0, 80)}`} of ${frames.length}`);
}

function checkError(dialect: ErrorDialect, answer: Answer, fail: (kind: string, detail: string) => void): void {
  const type = String(answer.headers['content-type'] ?? '');
  const body = parseObject(answer.body.toString('utf8'));
  if (!type.startsWith('application/json') || body === undefined) {
    fail('error-not-in-dialect', `${answer.status} content-type ${JSON.stringify(type)}, body ${preview(answer.body)}`);
    return;
  }
  const problem = dialect === 'anthropic' ? anthropicShape(body) : openaiShape(body.error);
  if (problem !== undefined) fail('error-shape', `${answer.status} ${problem}: ${preview(answer.body)}`);
}

/** `{type:'error', error:{type:string, message:string}}`, or what is wrong with it. */
function anthropicShape(body: Json): string | undefined {
  const error = body.error as Json | undefined;
  if (body.type !== 'error') return "type is not 'error'";
  if (typeof error !== 'object' || error === null) return 'no error object';
  if (typeof error.type !== 'string' || typeof error.message !== 'string') return 'error.type or error.message is not a string';
  return undefined;
}

/** `{message:string, type:string, param:string|null, code:string|null}` (the `error` member), or what is wrong with it. */
function openaiShape(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return 'no error object';
  const { message, type, param, code } = error as Json;
  if (typeof message !== 'string' || typeof type !== 'string') return 'error.message or error.type is not a string';
  if (!(param === null || typeof param === 'string') || !(code === null || typeof code === 'string')) return 'error.param or error.code missing or not a string or null';
  return undefined;
}

function errorMessage(answer: Answer): string | undefined {
  const body = parseObject(answer.body.toString('utf8'));
  const message = (body?.error as Json | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

function parseObject(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}

function preview(bytes: Buffer): string {
  return bytes.length === 0 ? '(empty)' : JSON.stringify(bytes.subarray(0, 200).toString('utf8'));
}
