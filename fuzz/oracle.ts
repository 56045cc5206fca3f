// The oracle: what every answer to a fuzzed request must satisfy, judged against what the fuzzer knows of the
// request (fuzz/facts.ts). No 5xx; every error in the route's dialect shape, as JSON, with x-request-id, and
// never echoing the bytes of a body that is not JSON, nor any control character; a 200 that is the route's answer (streams: see
// stream-check.ts); no 2xx for a request that could not be served (no valid key, a type that is not JSON,
// an encoding its bytes do not have, over the limit, not JSON); a few spec rules (count_tokens never 402 or
// 429, a 429 has retry-after). Notes are worth a look but are not failures.
import type { CaseFacts } from './facts.js';
import type { FuzzCase } from './fuzz-case.js';
import { ROUTES, type ErrorDialect, type RouteName } from './routes.js';
import type { Answer, Outcome } from './send.js';
import { anthropicErrorShape, checkStream, openaiErrorShape, parseObject } from './stream-check.js';

export interface Finding {
  /** A short stable name of the class of problem, e.g. `5xx` or `error-shape`. */
  kind: string;
  severity: 'failure' | 'note';
  detail: string;
}

type Json = Record<string, unknown>;
type Report = (kind: string, detail: string) => void;

/** Characters a message should not carry: C0 controls (bar tab and newlines), DEL, and U+FFFD. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const BINARY_ECHO = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\ufffd]/;

/** Control characters (C0, DEL, C1): no error message carries one, whatever the body was (values are quoted with escapes). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

export function judge(fuzzCase: FuzzCase, facts: CaseFacts, outcome: Outcome): Finding[] {
  const findings: Finding[] = [];
  const fail: Report = (kind, detail) => void findings.push({ kind, severity: 'failure', detail });
  const note: Report = (kind, detail) => void findings.push({ kind, severity: 'note', detail });
  const { answer } = outcome;
  if (answer === undefined) {
    fail('no-answer', outcome.error ?? 'no answer');
    return findings;
  }
  const { status } = answer;
  const route = fuzzCase.route;
  if (answer.headers['x-request-id'] === undefined)
    fail('no-request-id', `${status} without x-request-id (docs/endpoints.md: every response carries it)`);
  if (status >= 500) fail('5xx', `${status} ${errorMessage(answer) ?? preview(answer.body)}`);
  else if (status < 200 || (status >= 300 && status < 400)) fail('unexpected-status', String(status));

  if (status >= 200 && status < 300) {
    if (!facts.validKey) fail('served-without-valid-key', `${status} without a valid key`);
    if (facts.notJsonType)
      fail('served-non-json-content-type', `${status} for content-type ${fuzzCase.headers['content-type']}`);
    if (facts.overLimit) fail('served-over-limit', `${status} for a body over the limit (sent or inflated)`);
    else if (facts.undecodable)
      fail(
        'served-undecodable-content-encoding',
        `${status} for content-encoding ${fuzzCase.headers['content-encoding']} on bytes that do not decode so`,
      );
    else if (facts.body === 'not-json') fail('served-malformed-json', `${status} for a body that is not JSON`);
    if (facts.body === 'json-not-utf8')
      fail('served-invalid-utf8', `${status} for a JSON body that is not UTF-8 (RFC 8259; the gateway refuses it)`);
    if (facts.wire === 'invalid')
      fail('served-invalid-wire', `${status} for x-gateway-wire ${JSON.stringify(fuzzCase.headers['x-gateway-wire'])}`);
    checkSuccess(route, facts, answer, fail, note);
  } else if (status >= 400) {
    checkError(ROUTES[route].errors, answer, fail);
    const message = errorMessage(answer) ?? '';
    if (facts.sentBytesNotJson && BINARY_ECHO.test(message))
      fail('echoes-binary', `${status} message echoes bytes of the body: ${JSON.stringify(message.slice(0, 120))}`);
    else if (CONTROL_CHARACTER.test(message))
      fail('echoes-control', `${status} message carries a control character: ${JSON.stringify(message.slice(0, 120))}`);
    if (
      status === 401 &&
      ROUTES[route].errors === 'anthropic' &&
      facts.bearerOnly &&
      /invalid x-api-key/i.test(message)
    )
      fail('401-names-x-api-key', `the key came by Bearer; the message says ${JSON.stringify(message)}`);
    if (route === 'count_tokens' && (status === 402 || status === 429))
      fail(`count-tokens-${status}`, 'count_tokens is never billed nor rate limited (spec rules 8, 7.3)');
    if (status === 429 && answer.headers['retry-after'] === undefined)
      fail('429-without-retry-after', 'no retry-after header');
  }
  return findings;
}

function checkSuccess(route: RouteName, facts: CaseFacts, answer: Answer, fail: Report, note: Report): void {
  const type = String(answer.headers['content-type'] ?? '');
  const text = answer.body.toString('utf8');
  if (type.startsWith('text/event-stream')) {
    checkStream(route, facts, text, fail, note);
    return;
  }
  const body = parseObject(text);
  if (body === undefined || !ROUTES[route].isAnswer(body)) {
    fail('bad-success-body', `${answer.status} ${type}: ${preview(answer.body)}`);
    return;
  }
  const usage = ROUTES[route].usageProblem(body);
  if (usage !== undefined) fail('bad-usage', usage);
}

function checkError(dialect: ErrorDialect, answer: Answer, fail: Report): void {
  const type = String(answer.headers['content-type'] ?? '');
  const body = parseObject(answer.body.toString('utf8'));
  if (!type.startsWith('application/json') || body === undefined) {
    fail('error-not-in-dialect', `${answer.status} content-type ${JSON.stringify(type)}, body ${preview(answer.body)}`);
    return;
  }
  const problem = dialect === 'anthropic' ? anthropicErrorShape(body) : openaiErrorShape(body.error);
  if (problem !== undefined) fail('error-shape', `${answer.status} ${problem}: ${preview(answer.body)}`);
}

function errorMessage(answer: Answer): string | undefined {
  const body = parseObject(answer.body.toString('utf8'));
  const message = (body?.error as Json | undefined)?.message;
  return typeof message === 'string' ? message : undefined;
}

function preview(bytes: Buffer): string {
  return bytes.length === 0 ? '(empty)' : JSON.stringify(bytes.subarray(0, 200).toString('utf8'));
}
