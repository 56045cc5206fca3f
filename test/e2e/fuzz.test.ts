// The fuzz test (issue #11): a few thousand seeded, mutated requests across the four POST routes against
// a gateway with the full default chain on the sim, judged by fuzz/oracle.ts; then /health, the corpus
// and the books. The seed is printed first; FUZZ_SEED=N replays a run (FUZZ_COUNT changes its length),
// and `npm run fuzz -- --seed N --from CASE --count 1 --verbose` replays one case.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runCampaign, type CampaignResult } from '../../fuzz/campaign.js';
import { checkBooks, checkCorpus, checkHealth, checkLedger } from '../../fuzz/checks.js';
import type { Credentials } from '../../fuzz/fuzz-case.js';
import { createFuzzOrgs } from '../../fuzz/fuzz-orgs.js';
import { FUZZ_GATEWAY_YAML } from '../../fuzz/gateway-config.js';
import { classesTable, describeFailure, statusTable, summaryLine } from '../../fuzz/report.js';
import { openStore, type Store } from '../../store/store.js';
import { startGatewayProcess, type GatewayProcess } from '../helpers/gateway-process.js';

const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
/** About 5,000 of these are mutated; the rest are valid requests, which move money. */
const COUNT = process.env.FUZZ_COUNT ? Number(process.env.FUZZ_COUNT) : 5500;
const MUTATED_AT_LEAST = Math.min(5000, Math.floor(COUNT * 0.85));
// A 1 MB body limit instead of 4 MB: every nesting depth still fits, and the bodies grown to the limit
// stay cheap enough for CI (`npm run fuzz` keeps the default).
const BODY_LIMIT_BYTES = 1_048_576;

t.comment(`fuzz seed: ${seed}`);

let gateway: GatewayProcess;
let store: Store;
let credentials: Credentials;
let result: CampaignResult;

t.before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gateway-fuzz-'));
  const configFile = join(dataDir, 'gateway.yaml');
  writeFileSync(configFile, `${FUZZ_GATEWAY_YAML}server:\n  body_limit_bytes: ${BODY_LIMIT_BYTES}\n`);
  store = await openStore({ dataDir });
  credentials = await createFuzzOrgs(store);
  gateway = await startGatewayProcess({ GATEWAY_DATA_DIR: dataDir }, '--config', configFile);
  // Its request log is not read here; drained so that the pipe never fills and stalls it.
  gateway.child.stdout?.resume();
});
t.teardown(async () => {
  await gateway?.stop();
  await store?.close();
});

t.test('every request of the corpus is served: the fuzzer starts from valid requests', async (t) => {
  t.same(await checkCorpus(gateway.url, credentials), []);
});

t.test(
  `mutated requests get no 5xx, errors in the route's dialect, streams that end, and nothing served that could not be`,
  async (t) => {
    result = await runCampaign({
      baseUrl: gateway.url,
      seed,
      count: COUNT,
      concurrency: 16,
      credentials,
      bodyLimitBytes: BODY_LIMIT_BYTES,
    });
    t.comment(summaryLine(result));
    t.comment(`statuses per route:\n${statusTable(result)}`);
    t.ok(result.mutated >= MUTATED_AT_LEAST, `${result.mutated} mutated requests`);
    t.equal(gateway.child.exitCode, null, 'the gateway is still running');
    t.equal(result.fiveHundreds, 0, 'no 5xx');
    if (result.failedCases > 0) {
      t.comment(`findings by class:\n${classesTable(result)}`);
      for (const failure of result.failures) t.comment(describeFailure(failure, seed));
    }
    t.equal(result.failedCases, 0, `no request fails the oracle (seed ${seed})`);
  },
);

t.test('after the run the gateway answers /health and still serves the corpus', async (t) => {
  t.same(await checkHealth(gateway.url), []);
  t.same(await checkCorpus(gateway.url, credentials), []);
});

t.test('after the run the books balance exactly for every organization, with no hold left open', async (t) => {
  const books = await checkBooks(store.db);
  t.equal(books.audits.length, 3, 'the three fuzz organizations');
  t.same(books.problems, []);
});

t.test(
  'every answered generation request has its ledger row, with the status its client got, and an error costs nothing',
  async (t) => {
    t.same(await checkLedger(store.db, result.answered), []);
  },
);
