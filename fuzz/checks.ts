// The checks around a run: the corpus is served before and after it (the baseline is right, and the
// gateway still serves), /health answers, and the books balance with no hold left open.
import { setTimeout as delay } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import { auditBalances, type BalanceAudit } from '../store/balance-audit.js';
import type { Database } from '../store/schema.js';
import { CORPUS } from './corpus.js';
import type { AnsweredRequest } from './campaign.js';
import type { Credentials } from './fuzz-case.js';
import { ROUTES } from './routes.js';
import { Sender } from './send.js';

/** Every seed, unmutated, with the rich key: each must get a 200. Returns the problems. */
export async function checkCorpus(baseUrl: string, credentials: Credentials): Promise<string[]> {
  const sender = new Sender(baseUrl, 4, 60_000);
  const problems: string[] = [];
  try {
    for (const seed of CORPUS) {
      const body = Buffer.from(JSON.stringify(seed.body));
      const outcome = await sender.send({
        index: -1,
        route: seed.route,
        seed: seed.name,
        mutations: [],
        mutated: false,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${credentials.rich}` },
        body,
        chunked: false,
      });
      const status = outcome.answer?.status;
      if (status !== 200)
        problems.push(
          `${seed.name} (${ROUTES[seed.route].path}): ${status ?? outcome.error} ${outcome.answer?.body.toString('utf8').slice(0, 300) ?? ''}`,
        );
    }
  } finally {
    sender.close();
  }
  return problems;
}

export async function checkHealth(baseUrl: string): Promise<string[]> {
  const sender = new Sender(baseUrl, 1, 10_000);
  try {
    const outcome = await sender.get('/health');
    const ok = outcome.answer?.status === 200 && outcome.answer.body.toString('utf8').includes('"ok"');
    return ok
      ? []
      : [
          `GET /health: ${outcome.answer?.status ?? outcome.error} ${outcome.answer?.body.toString('utf8').slice(0, 200) ?? ''}`,
        ];
  } finally {
    sender.close();
  }
}

/** How long the books may take to show the last answers' settlements (they commit before the last byte; releases may trail). */
const SETTLE_BOUND_MS = 10_000;

/**
 * The balance invariant for every organization (balance = credits added − settled costs − open holds), and no
 * hold left open once every answer has arrived. Returns the audits and the problems.
 */
export async function checkBooks(db: Kysely<Database>): Promise<{ audits: BalanceAudit[]; problems: string[] }> {
  const deadline = performance.now() + SETTLE_BOUND_MS;
  let audits = await auditBalances(db);
  while (audits.some((audit) => audit.openHoldsMicros !== 0) && performance.now() < deadline) {
    await delay(50);
    audits = await auditBalances(db);
  }
  const problems: string[] = [];
  for (const audit of audits) {
    if (audit.discrepancyMicros !== 0)
      problems.push(
        `org ${audit.orgId}: the books are off by ${audit.discrepancyMicros} micro-credits (${JSON.stringify(audit)})`,
      );
    if (audit.openHoldsMicros !== 0)
      problems.push(`org ${audit.orgId}: ${audit.openHoldsMicros} micro-credits still held after every answer arrived`);
  }
  return { audits, problems };
}

/**
 * The ledger against the answers (docs/credits-and-ledger.md, "The ledger"): every admitted generation request that got a 200
 * has its row; a row's status is the status its client got; a request answered with an error pays nothing.
 * Returns one line per kind of problem, with its count and first case.
 */
export async function checkLedger(db: Kysely<Database>, answered: Map<string, AnsweredRequest>): Promise<string[]> {
  const rows = await db.selectFrom('usage').select(['id', 'status', 'cost_micros', 'state']).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  const problems = new Map<string, { count: number; first: string }>();
  const add = (kind: string, request: AnsweredRequest, detail: string): void => {
    const seen = problems.get(kind);
    if (seen) seen.count++;
    else problems.set(kind, { count: 1, first: `case ${request.index}, ${ROUTES[request.route].path}, ${detail}` });
  };
  for (const [id, request] of answered) {
    const row = byId.get(id);
    if (row === undefined) {
      if (request.status === 200 && request.route !== 'count_tokens')
        add('ledger-row-missing', request, `200 with no usage row ${id}`);
      continue;
    }
    if (row.status !== request.status)
      add(
        'ledger-status-differs',
        request,
        `the client got ${request.status}, the row says ${row.status} (${row.state}, cost ${row.cost_micros})`,
      );
    if (request.status >= 400 && Number(row.cost_micros) > 0)
      add('billed-error', request, `the client got ${request.status} and paid ${row.cost_micros} micro-credits`);
  }
  return [...problems].map(([kind, { count, first }]) => `${kind}: ${count} request(s); first: ${first}`);
}
