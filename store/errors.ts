// The store's errors: a code the admin API (and the CLI) can map to a status, and a one-line message.

const STORE_ERRORS = {
  GW_ERR_STORE_UNAVAILABLE: 'the database cannot be opened',
  GW_ERR_STORE_INVALID: 'invalid input',
  GW_ERR_STORE_ORG_NOT_FOUND: 'no such organization',
  GW_ERR_STORE_ORG_EXISTS: 'the organization exists',
  GW_ERR_STORE_MEMBER_NOT_FOUND: 'no such member',
  GW_ERR_STORE_KEY_NOT_FOUND: 'no such key',
} as const;

export type StoreErrorCode = keyof typeof STORE_ERRORS;

export class StoreError extends Error {
  readonly code: StoreErrorCode;

  constructor(code: StoreErrorCode, message: string = STORE_ERRORS[code]) {
    super(message);
    this.name = 'StoreError';
    this.code = code;
  }
}
