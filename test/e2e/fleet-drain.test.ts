// SIGTERM of one node of a fleet under load (docs/deployment.md, "Upgrades"): streams in flight on it
// finish to their final event, it exits 0, and their ledger rows are settled with the usage the
// clients saw; meanwhile nginx sends the new requests to the other nodes, and every one is served. Each
// scenario runs once per kind of shared store and Redis (FLEET_BACKENDS).
import t, { type Test } from 'tap';
import type { DialectName } from '../../dialects/registry.js';
import { startSim, type RunningSim } from '../../sim/server.js';
import { FLEET_BACKENDS } from '../helpers/fleet-backends.js';
import { startFleet, type Fleet } from '../helpers/fleet.js';
import {
  DIALECTS,
  PATHS,
  readAnswer,
  requestBody,
  type LedgerTokens,
  type MeteredAnswer,
} from '../helpers/metered-answers.js';

const STREAMS = 6;
const CLIENTS = 12;
const CONFIG = `server: { drain_timeout_ms: 20000 }
upstream:
  forward_headers: [x-sim-itl-ms]
plugins:
  - name: auth
  - name: meter
`;

let sim: RunningSim;
t.before(async () => {
  sim = await startSim({ itlMs: 2, outputTokens: 24 });
});
t.teardown(() => sim.close());

interface OpenStream {
  /** Resolves when the first event has arrived. */
  started: Promise<void>;
  /** The x-request-id and the whole answer, once it ends. */
  answer: Promise<MeteredAnswer & { id: string | null }>;
}

/** A slow stream (100 ms between tokens: 2.4 s) straight to one node. */
function openStream(url: string, key: string, dialect: DialectName): OpenStream {
  let started: () => void = () => {};
  const startedPromise = new Promise<void>((resolve) => (started = resolve));
  const answer = fetch(url + PATHS[dialect], {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}`, 'x-sim-itl-ms': '100' },
    body: JSON.stringify(requestBody(dialect, true, 'Say something about draining.', 40)),
  }).then(async (response) => {
    const [watched, read] = response.body!.tee();
    void (async () => {
      const reader = watched.pipeThrough(new TextDecoderStream()).getReader();
      let text = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += chunk.value;
        if (text.includes('\n\n')) started();
      }
    })().catch(() => undefined);
    const whole = new Response(read, { status: response.status, headers: response.headers });
    return { ...(await readAnswer(dialect, true, whole)), id: response.headers.get('x-request-id') };
  });
  return { started: startedPromise, answer };
}

interface Load {
  /** Requests sent so far. */
  count(): number;
  /** What went wrong with the requests sent after the first `mark`: empty when all completed. */
  failuresAfter(mark: number): string[];
  /** Resolves once `stop.now` is set and the last requests ended. */
  finished: Promise<unknown>;
}

/** Clients through nginx, requests back to back (every dialect, streamed and not) until `stop`. */
function load(fleet: Fleet, key: string, stop: { now: boolean }): Load {
  const outcomes: string[] = [];
  const client = async (index: number): Promise<void> => {
    for (let n = index; !stop.now; n++) {
      const dialect = DIALECTS[n % 3]!;
      const stream = n % 2 === 0;
      const slot = outcomes.push('sent') - 1;
      try {
        const response = await fetch(fleet.front.url + PATHS[dialect], {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
          body: JSON.stringify(requestBody(dialect, stream, `Tell me about upgrades, number ${n}.`, 40)),
        });
        const answer = await readAnswer(dialect, stream, response);
        outcomes[slot] = answer.complete ? 'complete' : `${dialect} ${response.status} incomplete`;
      } catch (error) {
        outcomes[slot] = `${dialect} ${(error as Error).message}`;
      }
    }
  };
  return {
    count: () => outcomes.length,
    failuresAfter: (mark) => outcomes.slice(mark).filter((outcome) => outcome !== 'complete'),
    finished: Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i))),
  };
}

async function drainUnderLoad(t: Test, fleet: Fleet): Promise<void> {
  const org = fleet.createOrg('draining', '100');
  const stop = { now: false };
  const background = load(fleet, org.key, stop);
  const [, node] = fleet.nodes;
  const streams = Array.from({ length: STREAMS }, (_, i) => openStream(node!.url, org.key, DIALECTS[i % 3]!));
  await Promise.all(streams.map((stream) => stream.started));

  const mark = background.count();
  node!.child.kill('SIGTERM');
  const answers = await Promise.all(streams.map((stream) => stream.answer));
  const code = await node!.exit;
  stop.now = true;
  await background.finished;

  t.same(
    answers.map((answer) => answer.complete),
    Array.from({ length: STREAMS }, () => true),
    'every stream in flight on the node finished to its final event',
  );
  t.equal(code, 0, 'the node exited 0');
  t.same(background.failuresAfter(mark), [], 'every request sent through nginx during the drain was served');
  t.comment(
    `drain: ${STREAMS} streams on the node finished, ${background.count() - mark} requests through nginx meanwhile, exit ${code}`,
  );

  const store = await fleet.store();
  const rows = await store.db.selectFrom('usage').selectAll().where('org_id', '=', org.orgId).execute();
  const byId = new Map(rows.map((row) => [row.id, row]));
  t.same(
    answers.map((answer) => {
      const row = byId.get(answer.id ?? '');
      const tokens: LedgerTokens | undefined = row && {
        input_tokens: row.input_tokens,
        output_tokens: row.output_tokens,
        cache_read_tokens: row.cache_read_tokens,
        cache_write_tokens: row.cache_write_tokens,
      };
      return { state: row?.state, tokens };
    }),
    answers.map((answer) => ({ state: 'settled', tokens: answer.tokens })),
    "the drained streams' rows are settled with the usage their clients saw",
  );
  t.match(
    fleet.cli('ledger', 'check'),
    new RegExp(`${org.orgId}\\t.*\\theld 0 credits\\tdiscrepancy 0 credits`),
    'no hold left open, and the books balance',
  );
}

for (const backends of FLEET_BACKENDS) {
  t.test(backends.label, async (t) => {
    const fleet = await startFleet(t, { backends, upstreamUrl: `${sim.url}/v1`, config: CONFIG });
    await t.test(
      'SIGTERM of a node under load: its streams finish, it exits 0, their rows settle, nginx serves on',
      (t) => drainUnderLoad(t, fleet),
    );
  });
}
