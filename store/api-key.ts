// The API key format: `sk-svc-` + 32 bytes from the CSPRNG (crypto.randomBytes), encoded base64url
// (RFC 4648 §5, no padding): 43 characters of [A-Za-z0-9_-], 50 characters in all. The store keeps
// only the SHA-256 of the whole string (UTF-8), as lower-case hex, and its last 4 characters.
import { randomBytes } from 'node:crypto';
import { secretHash } from './secret-hash.js';

export const API_KEY_PREFIX = 'sk-svc-';
export const API_KEY_RANDOM_BYTES = 32;
const SHAPE = /^sk-svc-[A-Za-z0-9_-]{43}$/;

export interface NewApiKey {
  /** The full key: shown once, never stored. */
  key: string;
  hash: string;
  last4: string;
}

export function generateApiKey(): NewApiKey {
  const key = API_KEY_PREFIX + randomBytes(API_KEY_RANDOM_BYTES).toString('base64url');
  return { key, hash: hashApiKey(key), last4: key.slice(-4) };
}

export function hashApiKey(key: string): string {
  return secretHash(key);
}

/** Whether a string has the key's shape (a cheap check before any lookup; malformed keys get 401 unseen). */
export function isWellFormedApiKey(key: string): boolean {
  return SHAPE.test(key);
}
