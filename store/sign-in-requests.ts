// Requests for sign-in links, counted per e-mail address and per client address over a window: the
// throttle's memory, in the store so that every node of a fleet counts the same requests.
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export interface SignInRequestCounts {
  /** Requests for this e-mail address since the window's start. */
  email: number;
  /** Requests from this client address since the window's start. */
  address: number;
}

export class SignInRequests {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many requests the address and the client made within the last `windowMs`. */
  async counts(email: string, address: string, windowMs: number): Promise<SignInRequestCounts> {
    const since = this.now() - windowMs;
    const count = async (column: 'email' | 'address', value: string): Promise<number> => {
      const row = await this.db
        .selectFrom('sign_in_requests')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where(column, '=', value)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    };
    return { email: await count('email', email), address: await count('address', address) };
  }

  /** Notes one request, and forgets those older than `windowMs`. */
  async record(email: string, address: string, windowMs: number): Promise<void> {
    const now = this.now();
    await this.db
      .deleteFrom('sign_in_requests')
      .where('created_at', '<=', now - windowMs)
      .execute();
    await this.db.insertInto('sign_in_requests').values({ email, address, created_at: now }).execute();
  }
}
