// A store call on a request's path while the database cannot be reached (PostgreSQL down or
// restarting, SQLite's write lock held past the busy timeout): the client gets a 503 in its dialect,
// to try again shortly, not a 500; any other failure stays what it is.
import { GatewayError } from '../core/errors.js';
import { isUnreachable } from '../store/unreachable.js';

export async function orStoreUnavailable<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!isUnreachable(error)) throw error;
    throw new GatewayError(
      'GW_ERR_SERVER_STORE_UNAVAILABLE',
      'The gateway cannot reach its database right now; retry the request shortly.',
    );
  }
}
