// Requests Node's HTTP parser refuses before the gateway sees them: malformed, headers too large or too slow.
import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ErrorRenderer } from '../core/dialect.js';
import { GatewayError } from '../core/errors.js';
import { printable } from '../core/printable.js';
import { nextRequestId } from './request-id.js';

/** What Node's 'clientError' event carries: the parser's code (`HPE_…`) and the bytes it choked on. */
interface ClientError extends Error {
  code?: string;
  rawPacket?: Buffer;
}

const REQUEST_LINE = /^[A-Z]+ (\/[^ ?\r\n]*)/;

/** What was answered, for the log line. */
export interface ClientErrorAnswer {
  /** The id the answer carries in `x-request-id`, as every response does. */
  requestId: string;
  path: string;
  status: number;
  error: GatewayError;
}

/**
 * Answers a 'clientError' of Node's HTTP server in JSON, where Node's own answers have empty bodies:
 * in the message dialect's shape when the request line (if it can be read) names a /v1/messages path,
 * else in the chat shape. Then the connection is closed. Returns what was answered, for the log line,
 * unless the request is already the gateway's to log.
 */
export function answerClientError(
  error: ClientError,
  socket: Duplex,
  errorsFor: (path: string) => ErrorRenderer,
  headersTimeoutMs: number,
): ClientErrorAnswer | undefined {
  // A reset needs no answer; nor can one be written into a response already under way.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent: boolean; req: { url?: string } } | null })
    ._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return undefined;
  }
  const path = inFlight?.req.url ?? requestPath(error.rawPacket);
  const refusal = gatewayErrorOf(error, headersTimeoutMs);
  const rendered = errorsFor(path).renderError(refusal);
  const body = JSON.stringify(rendered.body);
  const requestId = nextRequestId();
  const head = `HTTP/1.1 ${rendered.status} ${STATUS_CODES[rendered.status] ?? ''}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n`;
  socket.end(head + body, () => socket.destroy());
  // A request whose headers were read (a bad chunk in its body) is logged by its own handler, as aborted.
  return inFlight == null ? { requestId, path, status: rendered.status, error: refusal } : undefined;
}

function gatewayErrorOf(error: ClientError, headersTimeoutMs: number): GatewayError {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new GatewayError(
        'GW_ERR_REQUEST_HEADERS_TIMEOUT',
        `The request headers did not arrive within ${headersTimeoutMs} ms.`,
      );
    case 'HPE_HEADER_OVERFLOW':
      return new GatewayError(
        'GW_ERR_REQUEST_HEADERS_TOO_LARGE',
        `The request headers exceed the limit of ${maxHeaderSize} bytes.`,
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new GatewayError('GW_ERR_REQUEST_TOO_LARGE', 'The chunk extensions of the request body are too large.');
    default:
      return new GatewayError(
        'GW_ERR_REQUEST_MALFORMED_HTTP',
        `The request is not valid HTTP/1.1 (${printable(error.code ?? 'unknown', 40)}).`,
      );
  }
}

/** The path of the request line at the start of the bytes the parser refused (printable, cut short), or '' when they hold none. */
function requestPath(rawPacket: Buffer | undefined): string {
  if (rawPacket === undefined) return '';
  return printable(
    REQUEST_LINE.exec(rawPacket.toString('latin1', 0, Math.min(rawPacket.length, 2048)))?.[1] ?? '',
    200,
  );
}
