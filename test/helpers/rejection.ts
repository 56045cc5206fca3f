// What a promise rejected with, for `t.match`: tap's `t.rejects` only types patterns with a message, name or
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
