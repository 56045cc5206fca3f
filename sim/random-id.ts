// llama-server's ids: 32 characters of [0-9A-Za-z] (its random_string(), used for `chatcmpl-…` and
// for tool-call ids). The completion id is random, as the server's; a tool-call id is drawn from a seed
// (the prompt's hash and the call's index), so the same conversation gets the same ids and tests stay
// reproducible.
import { randomInt } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LENGTH = 32;

export function randomAlphanumeric(): string {
  let out = '';
  for (let i = 0; i < LENGTH; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/** The same 32 characters for the same seed and index. */
export function seededAlphanumeric(seed: number, index: number): string {
  // splitmix32 over seed and index: every character from its own step.
  let state = (seed ^ Math.imul(index + 1, 0x9e3779b9)) >>> 0;
  let out = '';
  for (let i = 0; i < LENGTH; i++) {
    state = (state + 0x9e3779b9) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    z = (z ^ (z >>> 16)) >>> 0;
    out += ALPHABET[z % ALPHABET.length];
  }
  return out;
}
