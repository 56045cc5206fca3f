// How a fuzzed request presents (or fails to present) its API key: each of the fuzzer's organizations'
// keys by Bearer or x-api-key, and revoked, unknown, malformed, misplaced and missing ones.
import type { Credentials } from './fuzz-case.js';
import type { Prng } from './prng.js';

/** A well-formed key that no organization has. */
const UNKNOWN_KEY = `sk-svc-${'A'.repeat(43)}`;

interface KeyChoice {
  name: string;
  /** The rich organization's key, sent as a client would: the seed's own key, not a mutation. */
  valid?: true;
  headers(credentials: Credentials): Record<string, string>;
}

const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

const CHOICES: { weight: number; value: KeyChoice }[] = [
  { weight: 45, value: { name: 'rich key, Bearer', valid: true, headers: (keys) => bearer(keys.rich) } },
  { weight: 25, value: { name: 'rich key, x-api-key', valid: true, headers: (keys) => ({ 'x-api-key': keys.rich }) } },
  { weight: 8, value: { name: 'poor key', headers: (keys) => bearer(keys.poor) } },
  { weight: 3, value: { name: 'broke key', headers: (keys) => ({ 'x-api-key': keys.broke }) } },
  { weight: 3, value: { name: 'revoked key', headers: (keys) => bearer(keys.revoked) } },
  { weight: 3, value: { name: 'unknown key, Bearer', headers: () => bearer(UNKNOWN_KEY) } },
  { weight: 1, value: { name: 'unknown key, x-api-key', headers: () => ({ 'x-api-key': UNKNOWN_KEY }) } },
  { weight: 1, value: { name: 'malformed key', headers: () => bearer('sk-svc-short') } },
  { weight: 1, value: { name: 'key with a bad character', headers: (keys) => bearer(`${keys.rich.slice(0, -1)}!`) } },
  { weight: 1, value: { name: 'empty Bearer', headers: () => ({ authorization: 'Bearer ' }) } },
  {
    weight: 1,
    value: {
      name: 'Basic credentials',
      headers: (keys) => ({ authorization: `Basic ${Buffer.from(`user:${keys.rich}`).toString('base64')}` }),
    },
  },
  { weight: 1, value: { name: 'key without Bearer', headers: (keys) => ({ authorization: keys.rich }) } },
  { weight: 1, value: { name: 'long key', headers: () => ({ 'x-api-key': `sk-svc-${'x'.repeat(8000)}` }) } },
  {
    weight: 1,
    value: {
      name: 'unknown x-api-key and rich Bearer',
      headers: (keys) => ({ 'x-api-key': UNKNOWN_KEY, ...bearer(keys.rich) }),
    },
  },
  { weight: 5, value: { name: 'no key', headers: () => ({}) } },
];

export function chooseKey(
  rng: Prng,
  credentials: Credentials,
): { name: string; mutated: boolean; headers: Record<string, string> } {
  const choice = rng.weighted(CHOICES);
  return { name: choice.name, mutated: choice.valid !== true, headers: choice.headers(credentials) };
}

/** Whether any key header of a request holds a key of the fuzzer's organizations (revoked excepted). */
export function carriesValidKey(headers: Record<string, string>, credentials: Credentials): boolean {
  const valid = new Set([credentials.rich, credentials.poor, credentials.broke]);
  const bearerKey = /^bearer\s+(.*)$/i.exec(headers.authorization ?? '')?.[1]?.trim();
  return valid.has(headers['x-api-key']?.trim() ?? '') || (bearerKey !== undefined && valid.has(bearerKey));
}

/** Whether the request's only key came by `Authorization: Bearer`. */
export function keyCameByBearer(headers: Record<string, string>): boolean {
  return headers['x-api-key'] === undefined && /^bearer\s+\S/i.test(headers.authorization ?? '');
}
