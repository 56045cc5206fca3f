// The request's content-type: the gateway reads JSON bodies only.
import { GatewayError } from '../core/errors.js';
import { printable } from '../core/printable.js';

/**
 * Refuses (415) a content-type that is not JSON. JSON is `application/json` or `application/<name>+json`,
 * with any parameters (`; charset=utf-8`); a request without a content-type is read as JSON.
 */
export function checkJsonMediaType(header: string | undefined): void {
  if (header === undefined || header === 'application/json' || isJson(header)) return;
  throw new GatewayError(
    'GW_ERR_REQUEST_UNSUPPORTED_MEDIA_TYPE',
    `Unsupported content-type '${printable(header)}': send the body as application/json.`,
    'content-type',
  );
}

function isJson(header: string): boolean {
  const semicolon = header.indexOf(';');
  const type = (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
  return type === '' || type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}
