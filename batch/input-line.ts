// What a line of a batch must be before the batch is accepted: an OpenAI input line `{custom_id, method: POST,
// url, body}` and an Anthropic request `{custom_id, params}`. Each refusal is a 400 that names the line and
// the field; a line that passes may still fail when it runs (the dialect's own checks), in its result.
import { GatewayError } from '../core/errors.js';
import { printable } from '../core/printable.js';

/** The endpoints an OpenAI batch may run (its lines' `url`). */
export const OPENAI_BATCH_ENDPOINTS: readonly string[] = ['/v1/chat/completions', '/v1/responses'];

/** Anthropic's custom ids: 1 to 64 letters, digits, `-` and `_`. */
const ANTHROPIC_CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;
/** OpenAI's custom ids: any string, up to this long. */
const MAX_CUSTOM_ID = 512;

/** A line that passed: its custom id, and the model it names. */
export interface CheckedLine {
  customId: string;
  model: string;
}

/** The checks every line of one batch shares: the custom ids seen so far, and whether a model is served. */
export interface LineChecks {
  readonly seen: Set<string>;
  readonly servesModel: (model: string) => boolean;
}

/** Checks an OpenAI input line (its text), line `number` of the file, against the batch's `endpoint` if known. */
export function checkOpenAiLine(
  text: string,
  number: number,
  checks: LineChecks,
  endpoint: string | undefined,
): CheckedLine & { url: string } {
  const line = parsedObject(text, number);
  const customId = line.custom_id;
  if (typeof customId !== 'string' || customId === '' || customId.length > MAX_CUSTOM_ID)
    throw lineError(number, 'custom_id', `must be a string of 1 to ${MAX_CUSTOM_ID} characters`);
  if (checks.seen.has(customId))
    throw lineError(number, 'custom_id', `must be unique in the file ('${printable(customId)}' is not)`);
  checks.seen.add(customId);
  if (line.method !== 'POST') throw lineError(number, 'method', "must be 'POST'");
  const url = line.url;
  if (typeof url !== 'string' || !OPENAI_BATCH_ENDPOINTS.includes(url))
    throw lineError(number, 'url', `must be one of ${OPENAI_BATCH_ENDPOINTS.join(', ')}`);
  if (endpoint !== undefined && url !== endpoint)
    throw lineError(number, 'url', `must be the batch's endpoint ${endpoint} (it is ${url})`);
  return { customId, url, ...modelOf(line.body, number, 'body', checks) };
}

/** Checks request `index` of an Anthropic batch, `{custom_id, params}`. */
export function checkAnthropicRequest(request: unknown, index: number, checks: LineChecks): CheckedLine {
  const param = `requests[${index}]`;
  if (!isObject(request)) throw new GatewayError('GW_ERR_REQUEST_INVALID', `${param} must be an object.`, param);
  const customId = request.custom_id;
  if (typeof customId !== 'string' || !ANTHROPIC_CUSTOM_ID.test(customId))
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `${param}.custom_id must be 1 to 64 letters, digits, '-' or '_'.`,
      `${param}.custom_id`,
    );
  if (checks.seen.has(customId))
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `${param}.custom_id must be unique in the batch ('${customId}' is not).`,
      `${param}.custom_id`,
    );
  checks.seen.add(customId);
  const params = request.params;
  if (!isObject(params))
    throw new GatewayError('GW_ERR_REQUEST_INVALID', `${param}.params must be an object.`, `${param}.params`);
  const model = params.model;
  if (typeof model !== 'string' || model === '')
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `${param}.params.model must be a string.`,
      `${param}.params.model`,
    );
  if (!checks.servesModel(model))
    throw new GatewayError(
      'GW_ERR_REQUEST_INVALID',
      `${param}.params.model: this gateway serves no model '${printable(model)}'.`,
      `${param}.params.model`,
    );
  return { customId, model };
}

/** The body a stored line holds: an OpenAI line's `body`, an Anthropic request's `params`. */
export function lineBody(text: string): Record<string, unknown> {
  const line = JSON.parse(text) as Record<string, unknown>;
  const body = (line.body ?? line.params) as Record<string, unknown>;
  // A line's answer is collected whole: a stream asked for is answered as one body.
  const { stream: _stream, ...rest } = body;
  return rest;
}

function modelOf(body: unknown, number: number, field: string, checks: LineChecks): { model: string } {
  if (!isObject(body)) throw lineError(number, field, 'must be a JSON object');
  const model = body.model;
  if (typeof model !== 'string' || model === '') throw lineError(number, `${field}.model`, 'must be a string');
  if (!checks.servesModel(model))
    throw lineError(number, `${field}.model`, `must name a model this gateway serves ('${printable(model)}' is not)`);
  return { model };
}

function parsedObject(text: string, number: number): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError('GW_ERR_REQUEST_INVALID', `line ${number} of the file is not valid JSON.`, 'file');
  }
  if (!isObject(parsed))
    throw new GatewayError('GW_ERR_REQUEST_INVALID', `line ${number} of the file is not a JSON object.`, 'file');
  return parsed;
}

function lineError(number: number, field: string, rule: string): GatewayError {
  return new GatewayError('GW_ERR_REQUEST_INVALID', `line ${number} of the file: ${field} ${rule}.`, 'file');
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
