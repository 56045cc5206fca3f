// Caps per key and per member (issue #28): what an organization's admins, or the operator, allow one API
// key, or all the keys one member made, beside the organization's tier and balance. Spend caps are
// integer micro-credits per UTC day, week (Monday to Monday) and month; a request counts in the periods
// of the moment it was admitted. Rate caps count per minute like the tier's limits; a concurrency cap
// counts the requests in flight.

/** A key's or a member's caps; a missing field is no cap. */
export interface Caps {
  dayMicros?: number;
  weekMicros?: number;
  monthMicros?: number;
  requestsPerMinute?: number;
  inputTokensPerMinute?: number;
  outputTokensPerMinute?: number;
  concurrentRequests?: number;
}

export type CapName = keyof Caps;

/** Every cap, in the order pages and messages list them. */
export const CAP_NAMES: readonly CapName[] = [
  'dayMicros',
  'weekMicros',
  'monthMicros',
  'requestsPerMinute',
  'inputTokensPerMinute',
  'outputTokensPerMinute',
  'concurrentRequests',
];

/** Each cap's name on the wire (the admin API, the console's API, GET /v1/me/caps) and its column in the store. */
export const CAP_FIELDS = {
  dayMicros: 'day_micros',
  weekMicros: 'week_micros',
  monthMicros: 'month_micros',
  requestsPerMinute: 'requests_per_minute',
  inputTokensPerMinute: 'input_tokens_per_minute',
  outputTokensPerMinute: 'output_tokens_per_minute',
  concurrentRequests: 'concurrent_requests',
} as const satisfies Record<CapName, string>;

/** The caps as JSON: the caps set, under their wire names. */
export function capsJson(caps: Caps | undefined): Record<string, number> {
  const json: Record<string, number> = {};
  for (const name of CAP_NAMES) if (caps?.[name] !== undefined) json[CAP_FIELDS[name]] = caps[name];
  return json;
}

/** The most a rate or concurrency cap may say: far above any real use, far below what a counter holds. */
export const MAX_RATE_CAP = 1_000_000_000;

export type SpendPeriod = 'day' | 'week' | 'month';

export const SPEND_PERIODS: readonly SpendPeriod[] = ['day', 'week', 'month'];

/** The spend cap of each period. */
export const SPEND_CAP: Readonly<Record<SpendPeriod, 'dayMicros' | 'weekMicros' | 'monthMicros'>> = {
  day: 'dayMicros',
  week: 'weekMicros',
  month: 'monthMicros',
};

/** Whose caps: one key, or every key one member of the organization made. */
export type CapScope = { kind: 'key'; keyId: string; name?: string } | { kind: 'member'; email: string };

/** The caps that apply to a caller: its key's, and its member's when a member made the key. */
export interface CallerCaps {
  key?: Caps;
  /** The member who made the key, with that member's caps. */
  member?: { email: string; caps: Caps };
}

/** Whether any cap is set. */
export function hasCaps(caps: Caps | undefined): caps is Caps {
  return caps !== undefined && CAP_NAMES.some((name) => caps[name] !== undefined);
}

export const DAY_MS = 86_400_000;

/** A period's bounds, Unix ms: [start, end). */
export interface PeriodBounds {
  start: number;
  end: number;
}

/** The UTC day, week (from Monday) or month that `at` (Unix ms) falls in. */
export function periodOf(period: SpendPeriod, at: number): PeriodBounds {
  const dayStart = Math.floor(at / DAY_MS) * DAY_MS;
  if (period === 'day') return { start: dayStart, end: dayStart + DAY_MS };
  if (period === 'week') {
    // 1970-01-01 was a Thursday: day d is a Monday when (d + 3) % 7 is zero.
    const day = dayStart / DAY_MS;
    const start = (day - ((((day + 3) % 7) + 7) % 7)) * DAY_MS;
    return { start, end: start + 7 * DAY_MS };
  }
  const date = new Date(at);
  return {
    start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
    end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1),
  };
}

/** How a scope is named in messages: "the key 'laptop'", "the member ana@example.com". */
export function describeScope(scope: CapScope): string {
  return scope.kind === 'key'
    ? `the key ${scope.name === undefined ? scope.keyId : `'${scope.name}'`}`
    : `the member ${scope.email}`;
}
