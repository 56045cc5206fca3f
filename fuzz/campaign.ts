// A fuzz run: cases 0…count-1 of one seed, sent with bounded concurrency, each answer judged by the oracle;
// the tallies (statuses per route, findings per class) and the first failures kept for the report.
import { factsOf } from './facts.js';
import type { FuzzCase, MutationContext } from './fuzz-case.js';
import { generateCase } from './generate.js';
import { judge, type Finding } from './oracle.js';
import type { RouteName } from './routes.js';
import { Sender, type Outcome } from './send.js';

export interface CampaignOptions extends MutationContext {
  baseUrl: string;
  seed: number;
  count: number;
  /** The first case's index (a replay of one case runs from it with count 1). */
  from?: number;
  concurrency: number;
  /** A request without a complete answer in this time is a failure. */
  timeoutMs?: number;
  /** Failing cases kept whole, with their request and answer: the first of each class (the rest are counted). */
  keepFailures?: number;
  /** Called after each answer (progress, or printing every case of a replay). */
  onAnswer?: (answered: JudgedCase, done: number) => void;
}

export interface AnsweredRequest {
  index: number;
  route: RouteName;
  status: number;
}

/** A case, its answer and what the oracle found (in a result's kept failures: the failures only). */
export interface JudgedCase {
  fuzzCase: FuzzCase;
  outcome: Outcome;
  findings: Finding[];
}

export interface CampaignResult {
  seed: number;
  sent: number;
  /** Sent changed from their seed (the rest are valid requests, the ones that move money). */
  mutated: number;
  elapsedMs: number;
  /** route → status (or `error`) → count. */
  statuses: Map<RouteName, Map<string, number>>;
  /** `severity kind route status` → count, and one example detail. */
  classes: Map<string, { count: number; example: string; index: number }>;
  failures: JudgedCase[];
  failedCases: number;
  /** By x-request-id: each answered case's number, route and status (the ledger check reads them). */
  answered: Map<string, AnsweredRequest>;
  fiveHundreds: number;
}

export async function runCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const sender = new Sender(options.baseUrl, options.concurrency, options.timeoutMs ?? 60_000);
  const result: CampaignResult = {
    seed: options.seed,
    sent: 0,
    mutated: 0,
    elapsedMs: 0,
    statuses: new Map(),
    classes: new Map(),
    failures: [],
    failedCases: 0,
    fiveHundreds: 0,
    answered: new Map(),
  };
  const keep = options.keepFailures ?? 20;
  const from = options.from ?? 0;
  const end = from + options.count;
  let next = from;
  const started = performance.now();
  const worker = async (): Promise<void> => {
    while (next < end) {
      const fuzzCase = generateCase(options.seed, next++, options);
      const outcome = await sender.send(fuzzCase);
      const findings = judge(fuzzCase, factsOf(fuzzCase, options.credentials, options.bodyLimitBytes), outcome);
      record(result, fuzzCase, outcome, findings, keep);
      options.onAnswer?.({ fuzzCase, outcome, findings }, result.sent);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, options.count) }, worker));
  } finally {
    sender.close();
  }
  result.elapsedMs = performance.now() - started;
  return result;
}

function record(result: CampaignResult, fuzzCase: FuzzCase, outcome: Outcome, findings: Finding[], keep: number): void {
  result.sent++;
  if (fuzzCase.mutated) result.mutated++;
  const status = outcome.answer?.status;
  const label = status === undefined ? 'no answer' : String(status);
  const perRoute = result.statuses.get(fuzzCase.route) ?? new Map<string, number>();
  perRoute.set(label, (perRoute.get(label) ?? 0) + 1);
  result.statuses.set(fuzzCase.route, perRoute);
  if (status !== undefined && status >= 500) result.fiveHundreds++;
  const requestId = outcome.answer?.headers['x-request-id'];
  if (typeof requestId === 'string' && status !== undefined)
    result.answered.set(requestId, { index: fuzzCase.index, route: fuzzCase.route, status });
  // A failing case is kept whole when it is the first of one of its classes: the report shows every kind once.
  let firstOfAClass = false;
  for (const finding of findings) {
    const key = `${finding.severity} ${finding.kind} ${fuzzCase.route} ${label}`;
    const seen = result.classes.get(key);
    if (seen) seen.count++;
    else {
      result.classes.set(key, { count: 1, example: finding.detail, index: fuzzCase.index });
      if (finding.severity === 'failure') firstOfAClass = true;
    }
  }
  const failures = findings.filter((finding) => finding.severity === 'failure');
  if (failures.length === 0) return;
  result.failedCases++;
  if (firstOfAClass && result.failures.length < keep) result.failures.push({ fuzzCase, outcome, findings: failures });
}
