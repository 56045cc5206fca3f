// The real Codex CLI (0.171) reads the gateway's x-codex-* headers (codex-rs/codex-api/src/rate_limits.rs,
// parse_rate_limit, on every responses stream): its session records them as the rate_limits of its
// token_count event (what its /status shows), so a Codex user sees the organization's window and balance; in
// its WebSocket mode it reads them from the codex.rate_limits event that starts each response.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import t, { type Test } from 'tap';
import { codexSetup, type CodexSetup } from '../helpers/codex.js';
import { stackForFile } from '../kit/file-stack.js';
import { CHAINS, tiersOf } from '../kit/stack-presets.js';

const stack = await stackForFile(t, {
  yaml:
    tiersOf({ name: 'Start', fromSpend: 0, requests: 10, outputTokens: 100_000 }) +
    CHAINS.authRatelimitMeterSearch +
    'dialects:\n  responses:\n    function_tools: true\n',
});

/** Every line of the session files (rollouts) Codex wrote under its CODEX_HOME. */
function rolloutLines(codex: CodexSetup): Array<Record<string, unknown>> {
  const sessions = join(dirname(codex.workDir), 'home', '.codex', 'sessions');
  const files = readdirSync(sessions, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.jsonl'));
  return files.flatMap((file) =>
    readFileSync(join(sessions, file), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>),
  );
}

/** Codex's last recorded rate limits after one run with a new organization's key, and that window's reset. */
async function recordedLimits(
  t: Test,
  options: { websockets: boolean },
): Promise<{ recorded: unknown; resetAt: number; usedBefore: number }> {
  const store = await stack.store();
  const org = await store.orgs.create(`codex-signals-${options.websockets ? 'ws' : 'http'}`);
  await store.orgs.addCredits(org.id, 12_500_000);
  const { key } = await store.keys.create(org.id, 'codex');
  const codex = codexSetup(stack.baseURL, { key, websockets: options.websockets });
  t.teardown(() => codex.remove());
  const run = await codex.run('Say hello.');
  t.equal(run.code, 0, 'codex exits 0');
  const tokenCounts = rolloutLines(codex)
    .map((line) => line.payload as Record<string, unknown> | undefined)
    .filter((payload) => payload?.type === 'token_count' && payload.rate_limits != null);
  t.ok(tokenCounts.length > 0, 'a token_count with rate_limits');
  // The same window, read by a request of the same organization right after: its reset is Codex's.
  const after = await fetch(`${stack.baseURL}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'qwen3-8b', input: 'echo: hi' }),
  });
  await after.arrayBuffer();
  return {
    recorded: tokenCounts.at(-1)?.rate_limits,
    resetAt: Number(after.headers.get('x-codex-primary-reset-at')),
    // What the window held before that last request: each request is 10% of the tier's 10 a minute.
    usedBefore: Number(after.headers.get('x-codex-primary-used-percent')) - 10,
  };
}

const windowAndCredits = (resetAt: number, usedPercent: number): Record<string, unknown> => ({
  limit_id: 'codex',
  primary: { used_percent: usedPercent, window_minutes: 1, resets_at: resetAt },
  secondary: null,
  credits: { has_credits: true, unlimited: false, balance: '12.5' },
});

t.test(
  "Codex records the organization's window (used percent, window minutes, reset) and credits balance from the x-codex-* headers",
  async (t) => {
    const { recorded, resetAt, usedBefore } = await recordedLimits(t, { websockets: false });
    t.equal(usedBefore, 10, "Codex's one request of the tier's 10 per minute");
    t.match(recorded, windowAndCredits(resetAt, usedBefore));
  },
);

t.test(
  "regression: in Codex's WebSocket mode no limit signal reached it; the codex.rate_limits event now carries the same window and credits",
  async (t) => {
    const { recorded, resetAt, usedBefore } = await recordedLimits(t, { websockets: true });
    t.match(recorded, windowAndCredits(resetAt, usedBefore));
  },
);
