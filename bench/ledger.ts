// Micro-benchmark of the meter's ledger writes: a hold and its settlement per request, through the
// Ledger on a fresh SQLite store, with `size` requests reaching each point in the same event-loop
// turn (so group-committed together), size 1, 2, 4, ... 64. Prints the process's CPU time per
// request and the statements and transactions each request costs, twice: for keys with no cap, and for
// a key with a day spend cap (admission then reads the key's spend and open holds in the transaction).
// `npm run bench:ledger` (BENCH_LEDGER_REQUESTS: requests per size, default 20,000).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HoldCap } from '../plugins/meter/cap-admission.js';
import { Ledger, type Hold } from '../plugins/meter/ledger.js';
import { NO_USAGE } from '../plugins/meter/price.js';
import { openStore } from '../store/store.js';
import type { Transactor } from '../store/transactor.js';

const REQUESTS = Number(process.env.BENCH_LEDGER_REQUESTS ?? 20_000);
const dataDir = mkdtempSync(join(tmpdir(), 'bench-ledger-'));
const store = await openStore({ dataDir });
const org = await store.orgs.create('bench');
await store.orgs.addCredits('bench', 1_000_000_000_000);
const keyId = (await store.keys.create('bench', 'k')).record.id;

let statements = 0;
let transactions = 0;
const counted: Transactor = (work) => {
  transactions++;
  return store.transact((sql) =>
    work({
      run(query) {
        statements++;
        return sql.run(query);
      },
    }),
  );
};
const ledger = new Ledger(store.db, counted);

/** A day cap no request reaches: admission reads and decides, and always admits. */
const DAY_CAP: HoldCap = { scope: { kind: 'key', keyId }, caps: { dayMicros: 1_000_000_000_000 } };
let caps: HoldCap[] = [];
let id = 0;
const newHold = (): Hold => ({
  id: `req-${++id}`,
  orgId: org.id,
  keyId,
  dialect: 'chat',
  holdMicros: 1_000,
  createdAt: Date.now(),
  caps,
});
const settlement = { usage: { ...NO_USAGE, input: 10, output: 20 }, costMicros: 20, status: 200, durationMs: 1 };

/** `requests` holds and settlements, `size` at a time. */
async function run(size: number, requests: number): Promise<void> {
  for (let done = 0; done < requests; done += size) {
    const holds = Array.from({ length: size }, newHold);
    await Promise.all(holds.map((hold) => ledger.hold(hold)));
    await Promise.all(holds.map((hold) => ledger.settle(hold, settlement)));
  }
}

for (const [mode, modeCaps] of [
  ['no cap', []],
  ['a day spend cap on the key', [DAY_CAP]],
] as const) {
  caps = [...modeCaps];
  console.log(`\n${mode}\nbatch  cpu us/request  statements/request  transactions/request`);
  for (let size = 1; size <= 64; size *= 2) {
    await run(size, Math.min(REQUESTS, 1_000)); // warm-up: statements prepared, code optimized
    const requests = Math.ceil(REQUESTS / size) * size;
    statements = 0;
    transactions = 0;
    const cpu = process.cpuUsage();
    await run(size, requests);
    const used = process.cpuUsage(cpu);
    const perRequest = (count: number): string => (count / requests).toFixed(2).padStart(20);
    console.log(
      `${String(size).padStart(5)}  ${((used.user + used.system) / requests).toFixed(1).padStart(14)}${perRequest(statements)}${perRequest(transactions)}`,
    );
  }
}
await store.close();
rmSync(dataDir, { recursive: true, force: true });
