// Each client's limit signal from the organization's window: one test per rule, and each family read
// back the way its client reads it.
// - Claude Code 2.1.332 (the native binary node_modules/@anthropic-ai/claude-code-linux-x64/claude; find
//   the code with `strings claude | grep anthropic-ratelimit-unified-status`): its header reader takes
//   `-status` (missing: allowed), `-reset` as Math.round(Number(value)) Unix seconds,
//   `-representative-claim` as the limit type and `-overage-status`; a `-<claim>-surpassed-threshold`
//   (claims five_hour=5h, seven_day=7d, seven_day_overage_included=7d_oi, overage=overage) makes its
//   warning; and a 429 is retried only while it carries neither the claim nor `-overage-status` nor an
//   `-overage-disabled-reason` (a subscriber's client) — `claudeCodeReads` below is that reading.
// - Codex (codex-rs/codex-api/src/rate_limits.rs, parse_rate_limit_window and parse_credits_snapshot):
//   used percent as a finite f64, window minutes and reset as i64, credits only when has-credits and
//   unlimited are both `true`/`false`/`1`/`0` — `codexReads` below.
import t from 'tap';
import type { Tier } from '../../../../limits/tiers.js';
import { codexRateLimitsEvent } from '../../../../dialects/responses/codex-rate-limits.js';
import {
  codexLimitSnapshot,
  writeCodexRateLimitHeaders,
} from '../../../../plugins/ratelimit/codex-rate-limit-headers.js';
import { writeUnifiedRateLimitHeaders } from '../../../../plugins/ratelimit/unified-ratelimit-headers.js';
import { windowUse, type WindowUse } from '../../../../plugins/ratelimit/window-use.js';

const tier: Tier = {
  name: 'Start',
  fromSpentMicros: 0,
  requestsPerMinute: 100,
  inputTokensPerMinute: 1000,
  outputTokensPerMinute: 400,
};
const RESET_MS = 1_795_851_873_120;

/** What Claude Code takes from the headers (see the file's comment). */
function claudeCodeReads(headers: Record<string, string>, status: number) {
  const get = (name: string): string | undefined => headers[`anthropic-ratelimit-unified-${name}`];
  const claims: ReadonlyArray<[string, string]> = [
    ['five_hour', '5h'],
    ['seven_day', '7d'],
    ['seven_day_overage_included', '7d_oi'],
    ['overage', 'overage'],
  ];
  const warning = claims.find(([, short]) => get(`${short}-surpassed-threshold`) !== undefined);
  const reset = get('reset');
  const claim = get('representative-claim');
  const overageStatus = get('overage-status');
  return {
    status: get('status') ?? 'allowed',
    resetsAt: reset === undefined ? undefined : Math.round(Number(reset)),
    rateLimitType: claim,
    overageStatus,
    warning: warning?.[0],
    retriesA429: status === 429 && !claim && !overageStatus && !get('overage-disabled-reason'),
  };
}

/** What Codex takes from the headers (see the file's comment). */
function codexReads(headers: Record<string, string>) {
  const f64 = (value: string | undefined) =>
    value !== undefined && Number.isFinite(Number(value)) ? Number(value) : undefined;
  const i64 = (value: string | undefined) => (value !== undefined && /^-?\d+$/.test(value) ? Number(value) : undefined);
  const bool = (value: string | undefined) =>
    value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : undefined;
  const hasCredits = bool(headers['x-codex-credits-has-credits']);
  const unlimited = bool(headers['x-codex-credits-unlimited']);
  return {
    usedPercent: f64(headers['x-codex-primary-used-percent']),
    windowMinutes: i64(headers['x-codex-primary-window-minutes']),
    resetsAt: i64(headers['x-codex-primary-reset-at']),
    credits:
      hasCredits === undefined || unlimited === undefined
        ? undefined
        : { hasCredits, unlimited, balance: headers['x-codex-credits-balance'] },
  };
}

const use = (utilization: number): WindowUse => ({ utilization, resetAt: RESET_MS });

function unified(utilization: number, rejected = false): Record<string, string> {
  const headers: Record<string, string> = {};
  writeUnifiedRateLimitHeaders(headers, use(utilization), rejected);
  return headers;
}

t.test("the window's use is its fullest counter against the tier, with that counter's reset", async (t) => {
  t.same(
    windowUse(tier, {
      requests: { used: 10, resetAt: 1 },
      input: { used: 500, resetAt: 2 },
      output: { used: 100, resetAt: 3 },
    }),
    { utilization: 0.5, resetAt: 2 },
  );
  t.same(
    windowUse(tier, {
      requests: { used: 0, resetAt: 7 },
      input: { used: 0, resetAt: 8 },
      output: { used: 0, resetAt: 9 },
    }),
    { utilization: 0, resetAt: 7 },
    'an empty window: nothing used, the requests counter reset',
  );
});

t.test('unified: below 75% used, allowed with the overage claim and no threshold', async (t) => {
  const headers = unified(0.5);
  t.same(headers, {
    'anthropic-ratelimit-unified-reset': '1795851874',
    'anthropic-ratelimit-unified-overage-reset': '1795851874',
    'anthropic-ratelimit-unified-status': 'allowed',
    'anthropic-ratelimit-unified-representative-claim': 'overage',
    'anthropic-ratelimit-unified-overage-status': 'allowed',
    'anthropic-ratelimit-unified-overage-utilization': '0.5',
  });
  t.same(claudeCodeReads(headers, 200), {
    status: 'allowed',
    resetsAt: 1795851874,
    rateLimitType: 'overage',
    overageStatus: 'allowed',
    warning: undefined,
    retriesA429: false,
  });
});

t.test(
  'unified: from 75% used, allowed_warning with threshold 0.75, which Claude Code reads as its warning',
  async (t) => {
    const headers = unified(0.8);
    t.equal(headers['anthropic-ratelimit-unified-status'], 'allowed_warning');
    t.equal(headers['anthropic-ratelimit-unified-overage-surpassed-threshold'], '0.75');
    t.equal(headers['anthropic-ratelimit-unified-overage-utilization'], '0.8');
    t.match(claudeCodeReads(headers, 200), { status: 'allowed_warning', warning: 'overage' });
  },
);

t.test('unified: from 95% used, threshold 0.95', async (t) => {
  t.equal(unified(0.95)['anthropic-ratelimit-unified-overage-surpassed-threshold'], '0.95');
});

t.test('unified: the utilization has two decimals, rounded down, exact for binary fractions like 0.29', async (t) => {
  t.equal(unified(0.29)['anthropic-ratelimit-unified-overage-utilization'], '0.29');
  t.equal(unified(0.123)['anthropic-ratelimit-unified-overage-utilization'], '0.12');
});

t.test(
  'unified: a served request that took a counter to its limit shows 0.99, never 1 (1 is the refusal)',
  async (t) => {
    const headers = unified(1.2);
    t.equal(headers['anthropic-ratelimit-unified-overage-utilization'], '0.99');
    t.equal(headers['anthropic-ratelimit-unified-status'], 'allowed_warning');
  },
);

t.test(
  "unified: the organization's 429 is rejected with the reset and without the claim, so Claude Code prints the gateway's message and retries at the reset",
  async (t) => {
    const headers = unified(0.5);
    writeUnifiedRateLimitHeaders(headers, use(1), true);
    t.same(headers, {
      'anthropic-ratelimit-unified-reset': '1795851874',
      'anthropic-ratelimit-unified-overage-reset': '1795851874',
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-overage-utilization': '1',
    });
    t.match(claudeCodeReads(headers, 429), { status: 'rejected', resetsAt: 1795851874, retriesA429: true });
  },
);

function codexHeaders(
  utilization: number,
  options: { windowMs?: number; rejected?: boolean; balance?: number } = {},
): Record<string, string> {
  const headers: Record<string, string> = {};
  writeCodexRateLimitHeaders(
    headers,
    codexLimitSnapshot(use(utilization), options.windowMs ?? 60_000, options.rejected ?? false, options.balance),
  );
  return headers;
}

t.test(
  'codex: the used percent, the window in minutes and the reset in Unix seconds, as Codex reads them',
  async (t) => {
    t.same(codexReads(codexHeaders(0.1234, { balance: 12_500_000 })), {
      usedPercent: 12.34,
      windowMinutes: 1,
      resetsAt: 1795851874,
      credits: { hasCredits: true, unlimited: false, balance: '12.5' },
    });
  },
);

t.test("codex: the organization's 429 shows 100% used; a counter past its limit shows 100, not more", async (t) => {
  t.equal(codexHeaders(0.2, { rejected: true })['x-codex-primary-used-percent'], '100');
  t.equal(codexHeaders(1.5)['x-codex-primary-used-percent'], '100');
});

t.test('codex: a window shorter than a minute is shown as one minute (Codex reads whole minutes)', async (t) => {
  t.equal(codexHeaders(0, { windowMs: 2000 })['x-codex-primary-window-minutes'], '1');
  t.equal(codexHeaders(0, { windowMs: 300_000 })['x-codex-primary-window-minutes'], '5');
});

t.test('codex: the balance is in credits, exact to the micro-credit; none, none of the credits headers', async (t) => {
  t.equal(codexHeaders(0, { balance: 1 })['x-codex-credits-balance'], '0.000001');
  t.same(codexReads(codexHeaders(0, { balance: 0 })).credits, { hasCredits: false, unlimited: false, balance: '0' });
  t.same(
    codexReads(codexHeaders(0, { balance: -3_000_000 })).credits,
    { hasCredits: false, unlimited: false, balance: '0' },
    'a balance below zero (settled past it) shows as 0',
  );
  t.equal(codexReads(codexHeaders(0)).credits, undefined, 'an unknown balance leaves the credits out');
});

t.test(
  "codex: the codex.rate_limits stream event carries the headers' figures, as Codex's parse_rate_limit_event reads it",
  async (t) => {
    const snapshot = codexLimitSnapshot(use(0.1234), 60_000, false, 12_500_000);
    // codex-rs/codex-api/src/rate_limits.rs: type, rate_limits.primary {used_percent, window_minutes, reset_at}, credits.
    const event = JSON.parse(codexRateLimitsEvent(snapshot)) as {
      type: string;
      rate_limits: { primary: { used_percent: number; window_minutes: number; reset_at: number } };
      credits: { has_credits: boolean; unlimited: boolean; balance: string };
    };
    t.equal(event.type, 'codex.rate_limits');
    t.same(
      {
        usedPercent: event.rate_limits.primary.used_percent,
        windowMinutes: event.rate_limits.primary.window_minutes,
        resetsAt: event.rate_limits.primary.reset_at,
        credits: {
          hasCredits: event.credits.has_credits,
          unlimited: event.credits.unlimited,
          balance: event.credits.balance,
        },
      },
      codexReads(codexHeaders(0.1234, { balance: 12_500_000 })),
    );
    const refused = JSON.parse(codexRateLimitsEvent(codexLimitSnapshot(use(0.2), 60_000, true, undefined)));
    t.match(refused, {
      rate_limits: { allowed: false, limit_reached: true, primary: { used_percent: 100 } },
      credits: null,
    });
  },
);
