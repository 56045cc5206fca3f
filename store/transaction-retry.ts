// On PostgreSQL two nodes' transactions can still meet: a deadlock (40P01) the server breaks by
// aborting one, or a serialization failure (40001). Neither means the work was wrong: it is run again,
// from the start, in a new transaction (the work must be a function of its inputs alone, as the meter's
// batches are), a few times before the error reaches the callers.
import type { Transactor } from './transactor.js';

const RETRYABLE = new Set(['40001', '40P01']);
const ATTEMPTS = 5;

/** Whether an error is a transaction conflict that trying again resolves. */
export function isConflict(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    RETRYABLE.has(String((error as { code: unknown }).code))
  );
}

/** Runs `transaction` (a whole transaction, begin to commit), again while it fails by a conflict. */
export async function retryConflicts<T>(transaction: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await transaction();
    } catch (error) {
      if (attempt >= ATTEMPTS || !isConflict(error)) throw error;
    }
  }
}

/** A transactor whose transactions are retried on conflicts. */
export function retryingConflicts(transact: Transactor): Transactor {
  return (work) => retryConflicts(() => transact(work));
}
