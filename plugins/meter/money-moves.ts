// What one batch of the meter's writes adds to each organization's balance and lifetime spend, summed
// per organization and written with one statement per MAX_BATCH_ROWS organizations. A sum must stay
// a safe integer to be exact; one that does not fails the batch, whose writes are then made one at a
// time (store/group-commit.ts), each with its own amounts.
import { MAX_BATCH_ROWS, type BatchTemplate } from '../../store/batch-template.js';
import { isMicros, MAX_MICROS } from '../../store/money.js';
import type { SqlRunner } from '../../store/transactor.js';

/** The statement that adds a batch of moves: one row per organization. */
export type MoveMoney = BatchTemplate<{ org: 'text'; balance: 'bigint'; spent: 'bigint' }>;

interface Move {
  balance: number;
  spent: number;
}

export class MoneyMoves {
  readonly #byOrg = new Map<string, Move>();

  /** Adds `balance` (signed) to the organization's balance and `spent` to its lifetime spend. */
  add(orgId: string, balance: number, spent: number): void {
    let move = this.#byOrg.get(orgId);
    if (move === undefined) this.#byOrg.set(orgId, (move = { balance: 0, spent: 0 }));
    move.balance = checkedSum(move.balance + balance);
    move.spent = checkedSum(move.spent + spent);
  }

  /** What the organization's balance moves by, so far. */
  balanceOf(orgId: string): number {
    return this.#byOrg.get(orgId)?.balance ?? 0;
  }

  /** Writes the moves (an organization's balance and spend that move by zero are left alone). */
  async write(sql: SqlRunner, statement: MoveMoney): Promise<void> {
    const cells: unknown[] = [];
    for (const [org, move] of this.#byOrg)
      if (move.balance !== 0 || move.spent !== 0) cells.push(org, move.balance, move.spent);
    const rows = cells.length / statement.width;
    for (let from = 0; from < rows; from += MAX_BATCH_ROWS)
      await sql.run(statement.bind(cells, from, Math.min(MAX_BATCH_ROWS, rows - from)));
  }
}

/** `sum`, if it is still a whole number of micro-credits within range; else the batch fails. */
export function checkedSum(sum: number): number {
  if (!isMicros(sum)) throw new RangeError(`ledger writes of one batch sum beyond ±${MAX_MICROS} micro-credits`);
  return sum;
}
