// What the gateway tells people, apart from API responses: today, that output tokens block an
// organization (spec §8.3: its admins and members get an e-mail, at most once per hour).

export interface OutputLimitNotice {
  orgId: string;
  /** The tier's output tokens per window, and what the window has used. */
  limit: number;
  used: number;
  /** When requests resume. */
  resetAt: Date;
}

export interface LimitNotifier {
  /** Called by the rate limiter each time an org's output tokens cross the limit; never throws, never waits for the mail. */
  outputTokensBlocked(notice: OutputLimitNotice): void;
  close(): Promise<void>;
}
