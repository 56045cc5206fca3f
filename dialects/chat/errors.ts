import type { RenderedError } from '../../core/dialect.js';
import type { ErrorKind, GatewayError } from '../../core/errors.js';

const TYPES: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'invalid_request_error',
  permission: 'invalid_request_error',
  billing: 'insufficient_quota',
  not_found: 'invalid_request_error',
  model_not_found: 'invalid_request_error',
  too_large: 'invalid_request_error',
  rate_limit: 'insufficient_quota',
  upstream: 'server_error',
  overloaded: 'server_error',
  timeout: 'server_error',
  internal: 'server_error',
};

/** The chat dialect's error body (spec section 7): `{error:{message, type, code, param}}`. */
export function renderChatError(error: GatewayError): RenderedError {
  // The spec's 401 says exactly `Unauthorized` in this dialect, whatever the reason.
  const message = error.kind === 'authentication' ? 'Unauthorized' : error.message;
  return {
    status: error.status,
    body: { error: { message, type: TYPES[error.kind], code: error.shortCode, param: error.param } },
  };
}
