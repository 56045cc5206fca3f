// OpenAI's Responses WebSocket mode: `response.create` messages on one connection, and the connection-local
// memory of the last response that lets the next one send only its new input with `previous_response_id`.
import type { SocketConversation, SocketMode } from '../../core/dialect.js';
import { GatewayError } from '../../core/errors.js';

const CREATE = 'response.create';
/** Message and field names are quoted back in errors up to this length. */
const MAX_QUOTED = 64;

/**
 * The WebSocket mode; `checkModel` is the decoder's served-model check, run on a `response.create`
 * before its other fields (`generate`, `stream`, `previous_response_id`), as the decoder runs it first.
 */
export function responsesSocketMode(checkModel: (body: unknown) => void): SocketMode {
  return { open: () => new ResponsesConversation(checkModel) };
}

/** The last response of the connection: its id, and the whole conversation it ended (its input, then its output). */
interface LastResponse {
  readonly id: string;
  readonly items: readonly unknown[];
}

/**
 * One connection's requests. The gateway stores no responses (spec rule 10), so `previous_response_id`
 * can name only the last response this connection completed, which the connection holds in memory, as
 * OpenAI's WebSocket mode does with `store: false`; anything else is a 400 `previous_response_not_found`.
 */
class ResponsesConversation implements SocketConversation {
  readonly #checkModel: (body: unknown) => void;
  #last: LastResponse | undefined;
  /** The whole input of the request under way (the continued conversation, then its new items). */
  #input: unknown[] | undefined;

  constructor(checkModel: (body: unknown) => void) {
    this.#checkModel = checkModel;
  }

  request(message: unknown): { body: unknown; generate: boolean } {
    if (!isRecord(message))
      throw new GatewayError('GW_ERR_REQUEST_INVALID', `A message must be a JSON object of type '${CREATE}'.`, 'type');
    if (message.type !== CREATE)
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        `Unknown message type ${quoted(message.type)}: the only one is '${CREATE}'.`,
        'type',
      );
    this.#checkModel(message);
    const { type: _type, generate, previous_response_id: previous, stream, ...body } = message;
    if (generate !== undefined && typeof generate !== 'boolean')
      throw new GatewayError('GW_ERR_REQUEST_INVALID', "'generate' must be a boolean.", 'generate');
    if (stream !== undefined && stream !== true)
      throw new GatewayError(
        'GW_ERR_REQUEST_INVALID',
        "'stream' cannot be turned off on a WebSocket: every response streams its events (leave 'stream' out).",
        'stream',
      );
    const input = itemsOf(body.input);
    this.#input = undefined;
    if (previous !== undefined && previous !== null) {
      const last = this.#last;
      if (last === undefined || previous !== last.id)
        throw new GatewayError(
          'GW_ERR_REQUEST_PREVIOUS_RESPONSE_NOT_FOUND',
          `Previous response ${quoted(previous)} not found: this gateway stores no responses, so only the last response completed on the same WebSocket can be continued. Send the whole conversation in 'input' instead.`,
          'previous_response_id',
        );
      // An input of the wrong type is the schema's to report, as it is.
      if (input === undefined && body.input !== undefined) return { body: { ...body, stream: true }, generate: true };
      this.#input = [...last.items, ...(input ?? [])];
    } else {
      this.#input = input;
    }
    const full = this.#input === undefined ? body : { ...body, input: this.#input };
    return { body: { ...full, stream: true }, generate: generate !== false };
  }

  sent(event: string, data: string): void {
    if (event !== 'response.completed' && event !== 'response.incomplete') return;
    const input = this.#input;
    this.#input = undefined;
    if (input === undefined) return;
    const response = (JSON.parse(data) as { response?: { id?: unknown; output?: unknown } }).response;
    if (typeof response?.id === 'string' && Array.isArray(response.output))
      this.#last = { id: response.id, items: [...input, ...(response.output as unknown[])] };
  }
}

/** The input as items (a string is one user message), or undefined when it is absent or not an input at all. */
function itemsOf(input: unknown): unknown[] | undefined {
  if (typeof input === 'string') return [{ type: 'message', role: 'user', content: input }];
  return Array.isArray(input) ? input : undefined;
}

function quoted(value: unknown): string {
  if (typeof value !== 'string') return value === undefined ? '(none)' : `of type ${typeof value}`;
  const text = value.length > MAX_QUOTED ? `${value.slice(0, MAX_QUOTED)}…` : value;
  return `'${text.replace(/[^\x20-\x7e]/g, '?')}'`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
