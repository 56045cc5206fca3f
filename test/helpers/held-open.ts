// Timers that a server's own handles keep alive (unref'd: the flush of last-used times, the orphan
// sweep, the deadline checker) hold nothing open in a test: a test that awaits what they do holds the
// process open itself meanwhile.

/** `promise`, awaited with the process held open. */
export async function heldOpen<T>(promise: Promise<T>): Promise<T> {
  const handle = setInterval(() => {}, 60_000);
  try {
    return await promise;
  } finally {
    clearInterval(handle);
  }
}
