import { randomBytes } from 'node:crypto';

/** A record id: a type prefix and 12 random bytes, base64url (e.g. `org_3Jw…`, `key_Qa9…`). */
export function newId(
  prefix:
    | 'org'
    | 'key'
    | 'req'
    | 'grant'
    | 'node'
    | 'audit'
    | 'pay'
    | 'rule'
    | 'evt'
    | 'whk'
    | 'dlv'
    | 'file'
    | 'batch'
    | 'msgbatch',
): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}
