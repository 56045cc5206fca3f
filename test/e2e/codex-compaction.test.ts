// Codex's compaction (0.171, pinned) against the gateway with the sim upstream, through a proxy that records what
// Codex sends. `model_auto_compact_token_limit` is set so low that auto-compaction fires in every run: in the middle
// of a turn (after a shell-tool round trip, before the follow-up) and before the next turn (`codex exec resume`).
// Codex decides by the provider's name how it compacts: with the README's provider (any name but "OpenAI" or an Azure
// one) locally, by asking for a summary in an ordinary request; with a provider named "OpenAI", remotely, by a
// /v1/responses request whose input ends with a `compaction_trigger` item, answered with one `compaction` item.
// Neither calls POST /v1/responses/compact. The remote way runs over WebSocket mode too (`supports_websockets`).
import t, { type Test } from 'tap';
import { SUMMARY_REQUEST } from '../../dialects/responses/compaction.js';
import type { Store } from '../../store/store.js';
import { codexSetup, type CodexRun } from '../helpers/codex.js';
import { startRecordingProxy, type RecordedExchange, type RecordingProxy } from '../helpers/recording-proxy.js';
import { startSocketRelay, type SocketRelay } from '../helpers/socket-relay.js';
import { startStack, type Stack } from '../helpers/stack.js';
import { sseJson } from '../kit/sse-reader.js';

let stack: Stack;
let store: Store;
let proxy: RecordingProxy;
let relay: SocketRelay;
let orgs = 0;

/** Far below one request's tokens (Codex's instructions alone are thousands): every chance to compact is taken. */
const COMPACT_LIMIT = 100;
const SHELL_PROMPT = 'Run exec_command cmd="echo compact-me" workdir=. shell=bash';
/** The start of Codex's own summary prompt (its local compaction). */
const LOCAL_SUMMARY_PROMPT = /^You are performing a CONTEXT CHECKPOINT COMPACTION/;

t.before(async () => {
  stack = await startStack({
    yaml: 'plugins:\n  - name: auth\n  - name: meter\n  - name: search\n    options: { provider: local }\ndialects:\n  responses:\n    function_tools: true\n',
  });
  store = await stack.store();
  proxy = await startRecordingProxy(stack.gateway.url);
  relay = await startSocketRelay(stack.gateway.url);
});
t.teardown(async () => {
  await relay.close();
  await proxy.close();
  await stack.close();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Codex's request bodies and SSE events, read loose
type Json = Record<string, any>;

/** A new organization with credits: its id and key (the ledger rows of one test are its). */
async function newOrg(): Promise<{ id: string; key: string }> {
  const org = await store.orgs.create(`codex-compaction-${++orgs}`);
  await store.orgs.addCredits(org.id, 100_000_000);
  return { id: org.id, key: (await store.keys.create(org.id, 'codex')).key };
}

/** Two runs of one session: a shell-tool turn, then a second turn that resumes it; the exchanges recorded meanwhile. */
async function twoTurns(
  t: Test,
  options: { providerName?: string; wire?: 'spec' | 'openai' },
): Promise<{ runs: CodexRun[]; posts: RecordedExchange[]; orgId: string }> {
  const org = await newOrg();
  const codex = codexSetup(`${proxy.url}/v1`, { ...options, key: org.key, autoCompactTokenLimit: COMPACT_LIMIT });
  t.teardown(() => codex.remove());
  const from = proxy.exchanges().length;
  const first = await codex.run(SHELL_PROMPT, { bypassSandbox: true });
  const second = await codex.run('Say hello again.', { resume: true });
  const exchanges = proxy.exchanges().slice(from);
  t.same(
    exchanges.filter((exchange) => exchange.method === 'POST').map((exchange) => exchange.path),
    exchanges.filter((exchange) => exchange.method === 'POST').map(() => '/v1/responses'),
    'every POST is to /v1/responses (none to /v1/responses/compact)',
  );
  const posts = exchanges.filter((exchange) => exchange.method === 'POST');
  return { runs: [first, second], posts, orgId: org.id };
}

const inputOf = (exchange: RecordedExchange): Json[] => (exchange.body as { input: Json[] }).input;
const lastText = (exchange: RecordedExchange): string =>
  (inputOf(exchange).at(-1)?.content as Json[] | undefined)?.map((part) => part.text as string).join('') ?? '';

/** The `data` of each event of a recorded event stream. */
const events = (exchange: RecordedExchange): Json[] => sseJson<Json>(exchange.response);

const errors = (run: CodexRun) =>
  run.events.filter((e) => e.type === 'error' || e.type === 'turn.failed' || e.item?.type === 'error');

/** One settled ledger row per POST, each a 200 of the responses dialect: a compaction is metered like any turn. */
async function assertMetered(t: Test, orgId: string, posts: RecordedExchange[]): Promise<void> {
  const rows = await store.db.selectFrom('usage').selectAll().where('org_id', '=', orgId).execute();
  t.same(
    rows.map((row) => ({ state: row.state, status: row.status, dialect: row.dialect })),
    posts.map(() => ({ state: 'settled', status: 200, dialect: 'responses' })),
    'one settled row per request, compactions included',
  );
  t.ok(
    rows.every((row) => row.cost_micros > 0),
    'each billed',
  );
}

t.test(
  "with the README's provider, Codex compacts locally: its summary request is an ordinary /v1/responses request, served and metered",
  async (t) => {
    const { runs, posts, orgId } = await twoTurns(t, {});
    for (const run of runs) {
      t.equal(run.code, 0, 'codex exits 0');
      t.same(errors(run), []);
      t.ok(run.finalMessage, 'an answer');
    }
    t.same(
      posts.map((post) => post.status),
      posts.map(() => 200),
      'every request served',
    );
    const summaries = posts.filter((post) => LOCAL_SUMMARY_PROMPT.test(lastText(post)));
    t.equal(summaries.length, 2, 'Codex asked for a summary in the turn and before the next one');
    t.notOk(
      posts.some((post) => inputOf(post).some((item) => /^compaction/.test(String(item.type)))),
      'no compaction_trigger or compaction item is sent',
    );
    await assertMetered(t, orgId, posts);
  },
);

for (const wire of ['spec', 'openai'] as const) {
  t.test(
    `[${wire}] with a provider named "OpenAI", Codex compacts remotely: the compaction_trigger request gets one compaction item, which Codex sends back instead of the history`,
    async (t) => {
      const sent = stack.sim.requests().length;
      const { runs, posts, orgId } = await twoTurns(t, { providerName: 'OpenAI', wire });
      for (const run of runs) {
        t.equal(run.code, 0, 'codex exits 0');
        t.same(errors(run), []);
        t.ok(run.finalMessage, 'an answer');
      }
      t.same(
        posts.map((post) => post.status),
        posts.map(() => 200),
        'every request served',
      );
      const triggers = posts.filter((post) => inputOf(post).at(-1)?.type === 'compaction_trigger');
      t.equal(triggers.length, 2, 'Codex compacted in the turn and before the next one');
      for (const trigger of triggers) {
        const done = events(trigger).filter((event) => event.type === 'response.output_item.done');
        t.same(
          done.map((event) => event.item.type),
          ['compaction'],
          'the answer is one compaction item',
        );
        const item = done[0]!.item as Json;
        t.match(item, { id: /^cmp_/, encrypted_content: /^gwc1\./ });
        const next = posts[posts.indexOf(trigger) + 1]!;
        t.ok(
          inputOf(next).some(
            (entry) => entry.type === 'compaction' && entry.encrypted_content === item.encrypted_content,
          ),
          'the next request carries the item back',
        );
        t.notOk(
          inputOf(next).some((entry) => entry.type === 'function_call_output'),
          'in place of the history it compacted',
        );
      }
      t.notOk(LOCAL_SUMMARY_PROMPT.test(posts.map(lastText).join('\n')), 'no local summary request');
      const asked = stack.sim
        .requests()
        .slice(sent)
        .map((request) => request.body as { messages: Json[]; tools?: unknown })
        .filter((body) => body.messages.at(-1)?.content === SUMMARY_REQUEST);
      t.equal(asked.length, 2, "the model was asked for each summary in the gateway's words");
      t.ok(
        asked.every((body) => body.tools === undefined),
        'with no tools to call',
      );
      await assertMetered(t, orgId, posts);
    },
  );
}

t.test(
  'in WebSocket mode too, a provider named "OpenAI" compacts with a compaction_trigger message, answered with one compaction item that Codex sends back',
  async (t) => {
    const org = await newOrg();
    const codex = codexSetup(relay.baseURL, {
      key: org.key,
      providerName: 'OpenAI',
      websockets: true,
      autoCompactTokenLimit: COMPACT_LIMIT,
    });
    t.teardown(() => codex.remove());
    const sockets = relay.sockets.length;
    const run = await codex.run(SHELL_PROMPT, { bypassSandbox: true });
    t.equal(run.code, 0, 'codex exits 0');
    t.same(errors(run), []);
    t.ok(run.finalMessage, 'an answer');
    const socket = relay.sockets.at(-1)!;
    t.equal(relay.sockets.length - sockets, 1, 'Codex opened one WebSocket');
    const trigger = socket.sent.findIndex((message) => (message.input as Json[]).at(-1)?.type === 'compaction_trigger');
    t.ok(trigger > 0, 'Codex sent the trigger on the socket');
    const done = socket.received.filter(
      (message) => message.type === 'response.output_item.done' && (message.item as Json).type === 'compaction',
    );
    t.equal(done.length, 1, 'one compaction item came back');
    const content = (done[0]!.item as Json).encrypted_content as string;
    t.ok(
      (socket.sent[trigger + 1]!.input as Json[]).some(
        (item) => item.type === 'compaction' && item.encrypted_content === content,
      ),
      'the next message carries it back',
    );
  },
);
