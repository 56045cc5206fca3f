import type { RenderedError } from '../../core/dialect.js';
import type { ErrorKind, GatewayError } from '../../core/errors.js';

/** Where the spec says "not shown", the type the dialect's vendor uses (docs/wire.md). */
const TYPES: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  billing: 'billing_error',
  not_found: 'not_found_error',
  model_not_found: 'not_found_error',
  too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  upstream: 'api_error',
  overloaded: 'overloaded_error',
  timeout: 'api_error',
  internal: 'api_error',
};

/** The message dialect's error body (spec section 7): `{type:'error', error:{type, message}}`. */
export function renderMessagesError(error: GatewayError): RenderedError {
  return { status: error.status, body: { type: 'error', error: { type: TYPES[error.kind], message: error.message } } };
}
