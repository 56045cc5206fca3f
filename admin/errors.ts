// The admin API's errors: one catalogue of codes with their status, rendered as
// `{ "error": { "code", "message", "field"? } }`. Bad input is always a 4xx naming the field.
import { GatewayError } from '../core/errors.js';
import { StoreError, type StoreErrorCode } from '../store/errors.js';

const ADMIN_ERRORS = {
  invalid_request: 400,
  malformed_json: 400,
  link_invalid: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  org_not_found: 404,
  member_not_found: 404,
  key_not_found: 404,
  batch_not_found: 404,
  method_not_allowed: 405,
  org_exists: 409,
  member_exists: 409,
  last_admin: 409,
  batch_not_ended: 409,
  body_too_large: 413,
  unsupported_media_type: 415,
  too_many_requests: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

export class AdminError extends Error {
  readonly code: AdminErrorCode;
  readonly status: number;
  /** The request field the error is about (`name`, `members[0].email`, `days`), if any. */
  readonly field: string | undefined;
  /** Headers the answer carries (`allow` on a 405). */
  readonly headers: Record<string, string>;

  constructor(code: AdminErrorCode, message: string, field?: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'AdminError';
    this.code = code;
    this.status = ADMIN_ERRORS[code];
    this.field = field;
    this.headers = headers;
  }

  toJSON(): { error: { code: string; message: string; field?: string } } {
    return {
      error: { code: this.code, message: this.message, ...(this.field !== undefined ? { field: this.field } : {}) },
    };
  }
}

const FROM_STORE: Record<StoreErrorCode, AdminErrorCode> = {
  GW_ERR_STORE_INVALID: 'invalid_request',
  GW_ERR_STORE_ORG_NOT_FOUND: 'org_not_found',
  GW_ERR_STORE_MEMBER_NOT_FOUND: 'member_not_found',
  GW_ERR_STORE_KEY_NOT_FOUND: 'key_not_found',
  GW_ERR_STORE_ORG_EXISTS: 'org_exists',
  GW_ERR_STORE_UNAVAILABLE: 'unavailable',
};

/**
 * Any thrown value as an AdminError: the store's codes and the body reader's map to their statuses;
 * `field` names the input a store's INVALID refers to. Unknown faults become `internal` without their text.
 */
export function asAdminError(error: unknown, field?: string): AdminError {
  if (error instanceof AdminError) return error;
  if (error instanceof StoreError) {
    const code = FROM_STORE[error.code];
    return new AdminError(code, error.message, code === 'invalid_request' ? field : undefined);
  }
  if (error instanceof GatewayError) {
    if (error.code === 'GW_ERR_REQUEST_TOO_LARGE') return new AdminError('body_too_large', error.message);
    if (error.code === 'GW_ERR_REQUEST_MALFORMED_JSON') return new AdminError('malformed_json', error.message);
    if (error.status === 415) return new AdminError('unsupported_media_type', error.message);
    if (error.status === 400) return new AdminError('invalid_request', error.message);
  }
  return new AdminError('internal', 'the admin API failed to process the request');
}

/** Runs a store call whose INVALID errors are about `field`. */
export async function about<T>(field: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asAdminError(error, field);
  }
}
