// The OpenAI SDK pointed at a test stack on one wire profile (docs/wire.md): the client the chat and responses
// SDK tests build for each of `spec` and `openai`.
import OpenAI from 'openai';
import type { Stack } from '../helpers/stack.js';

export type WireProfile = 'spec' | 'openai';

/** The profiles a dialect test runs its rules under. */
export const WIRE_PROFILES: readonly WireProfile[] = ['spec', 'openai'];

/** A client of `stack` that asks for `wire` and does not retry (a test sees the first answer). */
export function openaiClient(stack: Stack, wire: WireProfile): OpenAI {
  return new OpenAI({
    apiKey: 'sk-test',
    baseURL: stack.baseURL,
    defaultHeaders: { 'x-gateway-wire': wire },
    maxRetries: 0,
  });
}
