// One catalogue of gateway errors. Each code has a status and a kind; each dialect renders the kind
// in its own wire shape (dialects/<dialect>/errors.ts).

export type ErrorKind =
  | 'invalid_request'
  | 'authentication'
  | 'permission'
  | 'billing'
  | 'not_found'
  | 'model_not_found'
  | 'too_large'
  | 'rate_limit'
  | 'upstream'
  | 'overloaded'
  | 'timeout'
  | 'internal';

interface ErrorSpec {
  status: number;
  kind: ErrorKind;
  /** A short machine-readable code (`request_too_large`, …), null where none: dialects whose errors carry a code show it. */
  shortCode: string | null;
}

const CATALOGUE = {
  GW_ERR_REQUEST_MALFORMED_JSON: { status: 400, kind: 'invalid_request', shortCode: null },
  GW_ERR_REQUEST_INVALID: { status: 400, kind: 'invalid_request', shortCode: null },
  GW_ERR_REQUEST_UNSUPPORTED_TOOL: { status: 400, kind: 'invalid_request', shortCode: null },
  GW_ERR_REQUEST_BAD_HEADER: { status: 400, kind: 'invalid_request', shortCode: null },
  GW_ERR_REQUEST_PREVIOUS_RESPONSE_NOT_FOUND: {
    status: 400,
    kind: 'invalid_request',
    shortCode: 'previous_response_not_found',
  },
  // A service tier the operator does not offer, or does not let the caller's organization use (issue #31).
  GW_ERR_REQUEST_SERVICE_TIER: { status: 400, kind: 'invalid_request', shortCode: 'service_tier_unavailable' },
  GW_ERR_REQUEST_TOO_LARGE: { status: 413, kind: 'too_large', shortCode: 'request_too_large' },
  GW_ERR_REQUEST_TOO_DEEP: { status: 400, kind: 'invalid_request', shortCode: null },
  GW_ERR_REQUEST_UNDECODABLE_BODY: { status: 400, kind: 'invalid_request', shortCode: null },
  GW_ERR_REQUEST_UNSUPPORTED_MEDIA_TYPE: { status: 415, kind: 'invalid_request', shortCode: 'unsupported_media_type' },
  GW_ERR_REQUEST_UNSUPPORTED_ENCODING: {
    status: 415,
    kind: 'invalid_request',
    shortCode: 'unsupported_content_encoding',
  },
  GW_ERR_REQUEST_BODY_TIMEOUT: { status: 408, kind: 'invalid_request', shortCode: 'request_timeout' },
  GW_ERR_REQUEST_HEADERS_TIMEOUT: { status: 408, kind: 'invalid_request', shortCode: 'request_timeout' },
  GW_ERR_REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    kind: 'invalid_request',
    shortCode: 'request_header_fields_too_large',
  },
  GW_ERR_REQUEST_MALFORMED_HTTP: { status: 400, kind: 'invalid_request', shortCode: null },
  GW_ERR_SERVER_TOO_MANY_CONNECTIONS: { status: 503, kind: 'overloaded', shortCode: 'too_many_connections' },
  GW_ERR_SERVER_BODIES_IN_FLIGHT: { status: 503, kind: 'overloaded', shortCode: 'bodies_in_flight' },
  GW_ERR_SERVER_SHUTTING_DOWN: { status: 503, kind: 'overloaded', shortCode: 'shutting_down' },
  GW_ERR_SERVER_STORE_UNAVAILABLE: { status: 503, kind: 'overloaded', shortCode: 'store_unavailable' },
  GW_ERR_AUTH_MISSING_KEY: { status: 401, kind: 'authentication', shortCode: 'invalid_api_key' },
  GW_ERR_AUTH_INVALID_KEY: { status: 401, kind: 'authentication', shortCode: 'invalid_api_key' },
  GW_ERR_BILLING_NO_CREDITS: { status: 402, kind: 'billing', shortCode: 'insufficient_credits' },
  GW_ERR_RATE_LIMIT_REQUESTS: { status: 429, kind: 'rate_limit', shortCode: 'insufficient_quota' },
  GW_ERR_RATE_LIMIT_INPUT_TOKENS: { status: 429, kind: 'rate_limit', shortCode: 'insufficient_quota' },
  GW_ERR_RATE_LIMIT_OUTPUT_TOKENS: { status: 429, kind: 'rate_limit', shortCode: 'insufficient_quota' },
  GW_ERR_RATE_LIMIT_SPEND_CAP: { status: 429, kind: 'rate_limit', shortCode: 'insufficient_quota' },
  GW_ERR_RATE_LIMIT_CONCURRENCY: { status: 429, kind: 'rate_limit', shortCode: 'rate_limit_exceeded' },
  GW_ERR_MODEL_NOT_FOUND: { status: 404, kind: 'model_not_found', shortCode: 'model_not_found' },
  // The batch APIs (issue #29): a file or batch that is not the caller's organization's, a file over the size
  // or line limit, an organization at its quota of files or unfinished batches.
  GW_ERR_RESOURCE_NOT_FOUND: { status: 404, kind: 'not_found', shortCode: 'not_found' },
  GW_ERR_FILE_TOO_LARGE: { status: 400, kind: 'invalid_request', shortCode: 'file_too_large' },
  GW_ERR_QUOTA_EXCEEDED: { status: 400, kind: 'invalid_request', shortCode: 'quota_exceeded' },
  GW_ERR_ROUTE_NOT_FOUND: { status: 404, kind: 'not_found', shortCode: 'unknown_url' },
  GW_ERR_ROUTE_NOT_ENABLED: { status: 404, kind: 'not_found', shortCode: 'endpoint_not_enabled' },
  GW_ERR_ROUTE_METHOD_NOT_ALLOWED: { status: 405, kind: 'invalid_request', shortCode: 'method_not_allowed' },
  GW_ERR_UPSTREAM_REJECTED: { status: 400, kind: 'invalid_request', shortCode: null },
  GW_ERR_UPSTREAM_UNREACHABLE: { status: 502, kind: 'upstream', shortCode: 'upstream_unreachable' },
  GW_ERR_UPSTREAM_FAILED: { status: 502, kind: 'upstream', shortCode: 'upstream_error' },
  GW_ERR_UPSTREAM_BAD_RESPONSE: { status: 502, kind: 'upstream', shortCode: 'upstream_bad_response' },
  GW_ERR_UPSTREAM_STREAM_CUT: { status: 502, kind: 'upstream', shortCode: 'upstream_stream_cut' },
  GW_ERR_UPSTREAM_OVERLOADED: { status: 503, kind: 'overloaded', shortCode: 'upstream_overloaded' },
  GW_ERR_UPSTREAM_TIMEOUT: { status: 504, kind: 'timeout', shortCode: 'upstream_timeout' },
  GW_ERR_INTERNAL: { status: 500, kind: 'internal', shortCode: 'internal_error' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof CATALOGUE;

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly kind: ErrorKind;
  readonly shortCode: string | null;
  /** The request field the error is about, e.g. `messages[0].role`, or null. */
  readonly param: string | null;

  constructor(code: ErrorCode, message: string, param: string | null = null) {
    super(message);
    const spec: ErrorSpec = CATALOGUE[code];
    this.name = 'GatewayError';
    this.code = code;
    this.status = spec.status;
    this.kind = spec.kind;
    this.shortCode = spec.shortCode;
    this.param = param;
  }
}

/** Any thrown value as a GatewayError; unknown faults become GW_ERR_INTERNAL without leaking their text. */
export function asGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  return new GatewayError('GW_ERR_INTERNAL', 'The gateway failed to process the request.');
}
