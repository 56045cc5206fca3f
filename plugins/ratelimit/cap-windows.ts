// The rate caps of keys and members (store/cap-rules.ts): requests, input tokens and output tokens per
// window, counted like the organization's tier (the same RateWindow, in memory or in Redis, so exact
// across a fleet), each capped scope in windows of its own (`key:<id>`, `member:<org>/<e-mail>`). A
// caller is held to its organization's tier and to every cap of its key and its member; a 429 names
// the cap, and `retry-after` counts to that cap's window reset. The tier's headers are left as they are.
import { GatewayError } from '../../core/errors.js';
import { writeRetryAfter } from '../../core/retry-after.js';
import { CAP_FIELDS, describeScope, type CallerCaps, type Caps, type CapScope } from '../../store/cap-rules.js';
import type { GatewayMetrics } from '../../telemetry/metrics.js';
import { LIMIT_CODES, LIMIT_NAMES } from './limit-error.js';
import type { Count, CounterKind, Counts, RateWindow, WindowLog } from './window.js';

/** A scope of the caller that has rate caps, with the subject its windows are counted under. */
export interface RateCapScope {
  scope: CapScope;
  caps: Caps;
  subject: string;
  /** Its counters, as the last operation left them. */
  counts?: Counts;
}

/** The cap on each counter. */
const CAP_OF: Readonly<Record<CounterKind, 'requestsPerMinute' | 'inputTokensPerMinute' | 'outputTokensPerMinute'>> = {
  requests: 'requestsPerMinute',
  input: 'inputTokensPerMinute',
  output: 'outputTokensPerMinute',
};

export class CapWindows {
  readonly #window: RateWindow;
  readonly #now: () => number;
  readonly #metrics: GatewayMetrics | undefined;

  constructor(window: RateWindow, now: () => number, metrics: GatewayMetrics | undefined) {
    this.#window = window;
    this.#now = now;
    this.#metrics = metrics;
  }

  /** The caller's scopes that have a rate cap: its key's, its member's. */
  scopesOf(orgId: string, keyId: string, keyName: string, caps: CallerCaps): RateCapScope[] {
    const scopes: RateCapScope[] = [];
    if (hasRateCap(caps.key))
      scopes.push({ scope: { kind: 'key', keyId, name: keyName }, caps: caps.key, subject: `key:${keyId}` });
    const member = caps.member;
    if (member !== undefined && hasRateCap(member.caps))
      scopes.push({
        scope: { kind: 'member', email: member.email },
        caps: member.caps,
        subject: `member:${orgId}/${member.email}`,
      });
    return scopes;
  }

  /**
   * The start of a generating call: counts one request in each scope and refuses (the 429, its retry
   * headers written into `headers`) past a requests cap, or once an output-tokens cap is used up.
   */
  async open(scopes: readonly RateCapScope[], headers: Record<string, string>, log: WindowLog): Promise<void> {
    for (const capped of scopes) {
      const counts = await this.#window.open(capped.subject, 1, log);
      capped.counts = counts;
      const requests = capped.caps.requestsPerMinute;
      if (requests !== undefined && counts.requests.used > requests)
        throw this.#refuse(capped, 'requests', counts.requests, headers);
      const output = capped.caps.outputTokensPerMinute;
      if (output !== undefined && counts.output.used >= output)
        throw this.#refuse(capped, 'output', counts.output, headers, `${counts.output.used} used in this window`);
    }
  }

  /**
   * Charges the input estimate to each scope with an input cap; one that it does not fit refuses the
   * call, and every charge made for it (the scopes before, and `giveBack`, the tier's) is taken back.
   */
  async chargeInput(
    scopes: readonly RateCapScope[],
    estimate: number,
    headers: Record<string, string>,
    log: WindowLog,
    giveBack: () => Promise<void>,
  ): Promise<void> {
    const charged: RateCapScope[] = [];
    for (const capped of scopes) {
      const limit = capped.caps.inputTokensPerMinute;
      if (limit === undefined) continue;
      const { admitted, input } = await this.#window.chargeInput(capped.subject, estimate, limit, log);
      if (admitted) {
        if (capped.counts !== undefined) capped.counts.input = input;
        charged.push(capped);
        continue;
      }
      await Promise.all([
        giveBack(),
        ...charged.map((scope) => this.#window.settle(scope.subject, -estimate, undefined, log)),
      ]);
      const detail =
        estimate > limit
          ? `this request's estimated ${estimate} input tokens exceed the cap itself`
          : `this request needs about ${estimate} and ${Math.max(0, limit - input.used)} are left`;
      throw this.#refuse(capped, 'input', input, headers, detail);
    }
  }

  /**
   * The end of a call, in each scope: the input's difference to the estimate (where the window it was
   * charged to is still open) and the output tokens. Never throws: the response is on its way.
   */
  async settle(
    scopes: readonly RateCapScope[],
    inputDifference: number,
    output: number,
    log: WindowLog,
  ): Promise<void> {
    const now = this.#now();
    await Promise.all(
      scopes.map((capped) => {
        const input = inputDifference !== 0 && now < (capped.counts?.input.resetAt ?? 0) ? inputDifference : undefined;
        const outputChange = output > 0 ? output : undefined;
        if (input === undefined && outputChange === undefined) return undefined;
        return this.#window.settle(capped.subject, input, outputChange, log).catch(() => undefined);
      }),
    );
  }

  #refuse(
    capped: RateCapScope,
    kind: CounterKind,
    count: Count,
    headers: Record<string, string>,
    detail?: string,
  ): GatewayError {
    const retryMs = count.resetAt - this.#now();
    writeRetryAfter(headers, retryMs);
    const limit = capped.caps[CAP_OF[kind]];
    const field = CAP_FIELDS[CAP_OF[kind]];
    this.#metrics?.capRejections.inc({ cap: field, scope: capped.scope.kind });
    const per = this.#window.windowMs === 60_000 ? 'minute' : `${this.#window.windowMs / 1000} s`;
    return new GatewayError(
      LIMIT_CODES[kind],
      `Rate limit reached for ${LIMIT_NAMES[kind]} per ${per}: ${describeScope(capped.scope)} is capped at ${limit} (${field})${detail === undefined ? '' : `: ${detail}`}; retry after ${Math.max(1, Math.ceil(retryMs / 1000))} s.`,
    );
  }
}

function hasRateCap(caps: Caps | undefined): caps is Caps {
  return (
    caps !== undefined &&
    (caps.requestsPerMinute !== undefined ||
      caps.inputTokensPerMinute !== undefined ||
      caps.outputTokensPerMinute !== undefined)
  );
}
