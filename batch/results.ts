// A line's result in each API's shape. A line that ran keeps what its request got (store/batch-lines.ts:
// `{status_code, request_id, body}`); one that never ran (cancelled, expired) keeps nothing, its state says why.
// OpenAI: output-file lines for answered requests, error-file lines for the others. Anthropic: one result
// per request, `succeeded`, `errored`, `canceled` or `expired`.
import type { LineResult } from '../store/batch-lines.js';

/** What a line that ran keeps as its result. */
export interface RanResult {
  status_code: number;
  request_id: string;
  body: Record<string, unknown>;
}

/** An OpenAI output- or error-file line for the result, and which file it goes to. */
export function openAiResultLine(batchId: string, line: LineResult): { text: string; file: 'output' | 'error' } {
  if (line.result !== null) {
    const ran = JSON.parse(line.result) as RanResult;
    const text = JSON.stringify({ id: ran.request_id, custom_id: line.customId, response: ran, error: null });
    return { text, file: ran.status_code === 200 ? 'output' : 'error' };
  }
  const error =
    line.state === 'expired'
      ? { code: 'batch_expired', message: 'This request could not be run before the completion window expired.' }
      : { code: 'batch_cancelled', message: 'This request was not run: the batch was cancelled.' };
  const text = JSON.stringify({ id: `${batchId}.${line.lineNo}`, custom_id: line.customId, response: null, error });
  return { text, file: 'error' };
}

/** An Anthropic results line for the result. */
export function anthropicResultLine(line: LineResult): string {
  const result = anthropicResult(line);
  return JSON.stringify({ custom_id: line.customId, result });
}

function anthropicResult(line: LineResult): Record<string, unknown> {
  if (line.result === null) return { type: line.state === 'expired' ? 'expired' : 'canceled' };
  const ran = JSON.parse(line.result) as RanResult;
  if (ran.status_code === 200) return { type: 'succeeded', message: ran.body };
  return { type: 'errored', error: { ...ran.body, request_id: ran.request_id } };
}
