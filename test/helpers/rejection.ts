import { GatewayError } from '../../core/errors.js';

// What a promise rejected with, or what a call threw, for `t.match`: tap's `t.rejects` only types patterns with a message, name or
// code, and an SDK's error is matched on its status and parsed body instead.

/** The reason the promise rejected with; throws (failing the test) if it resolved instead. */
export async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (reason) {
    return reason;
  }
  throw new Error('expected the promise to reject, but it resolved');
}

/** The GatewayError a call threw (a decoder's refusal); throws (failing the test) if it returned instead. */
export function refusal(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a refusal, but the call returned');
}
