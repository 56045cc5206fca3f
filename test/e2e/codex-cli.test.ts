// The real Codex CLI (0.171, pinned) against the gateway with the sim upstream, in both wire profiles, set up as the
// README documents it: `codex exec` with its default features, a shell-tool round trip, web search on the embedded
// demo corpus, and the model metadata it reads from GET /v1/models; then the prompt and the shell round trip again
// over WebSocket mode (`supports_websockets = true`), through a relay that records what Codex sends on the socket.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import type { Store } from '../../store/store.js';
import { codexSetup, type CodexRun } from '../helpers/codex.js';
import { ledgerRow } from '../helpers/metered-answers.js';
import { startSocketRelay, type RelayedSocket, type SocketMessage, type SocketRelay } from '../helpers/socket-relay.js';
import { requestLine, startStack, type LogEntry, type Stack } from '../helpers/stack.js';

let stack: Stack;
let store: Store;
let relay: SocketRelay;
let key: string;
let orgs = 0;

/** A new organization with credits, its key: the ledger rows of one Codex run are that org's. */
async function newOrg(): Promise<{ id: string; key: string }> {
  const org = await store.orgs.create(`codex-org-${++orgs}`);
  await store.orgs.addCredits(org.id, 100_000_000);
  return { id: org.id, key: (await store.keys.create(org.id, 'codex')).key };
}

t.before(async () => {
  stack = await startStack({
    yaml: 'plugins:\n  - name: auth\n  - name: meter\n  - name: search\n    options: { provider: local }\ndialects:\n  responses:\n    function_tools: true\n',
  });
  store = await stack.store();
  relay = await startSocketRelay(stack.gateway.url);
  key = (await newOrg()).key;
});
t.teardown(async () => {
  await relay.close();
  await stack.close();
});

const errors = (run: CodexRun) =>
  run.events.filter((e) => e.type === 'error' || e.type === 'turn.failed' || e.item?.type === 'error');

for (const wire of ['spec', 'openai'] as const) {
  const setup = () => {
    const codex = codexSetup(stack.baseURL, { wire, key });
    t.teardown(() => codex.remove());
    return codex;
  };

  t.test(`[${wire}] regression (found 1): codex exec with its default features completes a plain prompt`, async (t) => {
    const run = await setup().run('Say hello.');
    t.equal(run.code, 0, 'codex exits 0');
    t.same(errors(run), []);
    t.ok(run.events.some((e) => e.type === 'turn.completed'));
    t.ok(run.finalMessage, 'an answer');
    const sent = stack.sim.requests().at(-1)?.body as { tools?: Array<{ function: { name: string } }> };
    t.ok(
      sent.tools?.some((tool) => tool.function.name === 'multi_agent_v1__spawn_agent'),
      "the namespace tool's functions reached the model, flattened",
    );
  });

  t.test(`[${wire}] Codex reads the model metadata from GET /v1/models: no fallback warning`, async (t) => {
    const run = await setup().run('Say hello.');
    t.ok(run.finalMessage, 'the run completed');
    t.notMatch(run.stderr + JSON.stringify(run.events), /Model metadata for `qwen3-8b` not found/);
  });

  t.test(
    `[${wire}] a shell-tool round trip: exec_command runs in the work dir, the answer has its result`,
    async (t) => {
      const codex = setup();
      const run = await codex.run(
        'Run exec_command cmd="touch made-by-codex.txt && echo done-by-codex" workdir=. shell=bash',
        {
          bypassSandbox: true,
        },
      );
      t.equal(run.code, 0, 'codex exits 0');
      t.ok(existsSync(join(codex.workDir, 'made-by-codex.txt')), 'the command ran in the work dir');
      const command = run.events.find((e) => e.type === 'item.completed' && e.item?.type === 'command_execution');
      t.match(command?.item, { command: /touch made-by-codex\.txt/, exit_code: 0 });
      t.match(run.finalMessage, /^Tool results: [\s\S]*done-by-codex/);
    },
  );

  t.test(
    `[${wire}] web search: Codex's web_search tool runs on the gateway's search, the answer cites results`,
    async (t) => {
      const run = await setup().run('search: serving models');
      t.equal(run.code, 0, 'codex exits 0');
      t.same(errors(run), []);
      const search = run.events.find((e) => e.type === 'item.completed' && e.item?.type === 'web_search');
      t.match(search?.item, { query: 'serving models' });
      t.match(run.finalMessage, /According to .+ \[1\]\. According to .+ \[2\]\./);
    },
  );
}

/** The gateway's log lines for /v1/responses written while `run` ran. */
async function responsesLines(run: () => Promise<CodexRun>): Promise<{ run: CodexRun; lines: LogEntry[] }> {
  const from = stack.logs.length;
  const result = await run();
  const lines = stack.logs
    .slice(from)
    .map((line) => JSON.parse(line) as LogEntry)
    .filter((entry) => entry.msg === 'request' && entry.path === '/v1/responses');
  return { run: result, lines };
}

/** The ids of the responses on a socket, in order (the response.completed messages). */
const responseIds = (socket: RelayedSocket): string[] =>
  socket.received
    .filter((message) => message.type === 'response.completed')
    .map((message) => (message.response as { id: string }).id);

const textDeltas = (socket: RelayedSocket): SocketMessage[] =>
  socket.received.filter((message) => message.type === 'response.output_text.delta');

for (const wire of ['spec', 'openai'] as const) {
  /** A Codex run over WebSocket mode through the relay, for a new org: the run, its socket, its log lines, its org. */
  const overSocket = async (t: Test, prompt: string, bypassSandbox = false) => {
    const org = await newOrg();
    const codex = codexSetup(relay.baseURL, { wire, key: org.key, websockets: true });
    t.teardown(() => codex.remove());
    const sockets = relay.sockets.length;
    const { run, lines } = await responsesLines(() => codex.run(prompt, { bypassSandbox }));
    t.equal(relay.sockets.length - sockets, 1, 'Codex opened one WebSocket');
    return { codex, run, lines, org, socket: relay.sockets.at(-1)! };
  };

  /** Every turn went over the socket: the upgrade, then one GET line per message, and no POST /v1/responses. */
  const assertOverSocket = (t: Test, lines: LogEntry[], messages: number) => {
    t.same(
      lines.map((line) => `${String(line.method)} ${String(line.status)}`),
      ['GET 101', ...Array.from({ length: messages }, () => 'GET 200')],
      'the upgrade, then each message as a request on the socket; no POST /v1/responses',
    );
  };

  /** One settled ledger row per generated response (the warm-up, the socket's first, has none), and no other. */
  const assertLedger = async (t: Test, orgId: string, ids: string[]) => {
    const [warmUp, ...generated] = ids.map((id) => id.replace(/^resp_/, ''));
    for (const id of generated) await requestLine(stack, id);
    const rows = await store.db.selectFrom('usage').selectAll().where('org_id', '=', orgId).execute();
    t.same(
      rows.map((row) => ({ id: row.id, state: row.state, status: row.status, dialect: row.dialect })).sort(byId),
      generated.map((id) => ({ id, state: 'settled', status: 200, dialect: 'responses' })).sort(byId),
      'one settled row per generated response',
    );
    t.equal(await ledgerRow(store.db, warmUp!), undefined, 'nothing billed for the warm-up');
  };

  t.test(`[${wire}] WebSocket mode: codex exec with its default features completes a plain prompt`, async (t) => {
    const { run, lines, org, socket } = await overSocket(t, 'Say hello.');
    t.equal(run.code, 0, 'codex exits 0');
    t.same(errors(run), []);
    t.ok(run.finalMessage, 'an answer');
    t.equal(socket.headers['x-gateway-wire'], wire, 'the profile header travels on the upgrade');
    t.match(socket.sent, [{ type: 'response.create', generate: false }, { type: 'response.create' }]);
    assertOverSocket(t, lines, 2);
    const ids = responseIds(socket);
    t.equal(ids.length, 2, 'the warm-up and the turn completed');
    const deltas = textDeltas(socket);
    t.ok(deltas.length > 0);
    t.ok(
      deltas.every((delta) => (wire === 'openai' ? typeof delta.delta === 'string' : typeof delta.delta === 'object')),
      `the events are in profile ${wire}`,
    );
    await assertLedger(t, org.id, ids);
  });

  t.test(
    `[${wire}] WebSocket mode: the shell-tool round trip continues each response with previous_response_id and only the new input`,
    async (t) => {
      const { codex, run, lines, org, socket } = await overSocket(
        t,
        'Run exec_command cmd="touch made-by-codex.txt && echo done-by-codex" workdir=. shell=bash',
        true,
      );
      t.equal(run.code, 0, 'codex exits 0');
      t.ok(existsSync(join(codex.workDir, 'made-by-codex.txt')), 'the command ran in the work dir');
      t.match(run.finalMessage, /^Tool results: [\s\S]*done-by-codex/);
      assertOverSocket(t, lines, 3);
      const ids = responseIds(socket);
      t.equal(ids.length, 3, 'the warm-up, the call, the answer');
      const [warmUp, call, answer] = socket.sent;
      t.match(warmUp, { generate: false });
      t.match(call, { previous_response_id: ids[0] }, "the first turn continues the warm-up's response");
      const warmedUp = new Set((warmUp!.input as unknown[]).map((item) => JSON.stringify(item)));
      t.ok(warmedUp.size > 0, 'the warm-up carried input');
      t.same(
        (call!.input as unknown[]).filter((item) => warmedUp.has(JSON.stringify(item))),
        [],
        "the first turn resends none of the warm-up's input",
      );
      t.match(answer, { previous_response_id: ids[1], input: [{ type: 'function_call_output' }] });
      t.equal((answer!.input as unknown[]).length, 1, 'the second turn sends only the tool output');
      await assertLedger(t, org.id, ids);
    },
  );
}

t.test(
  'without the header, Codex works on the negotiated profile over HTTP, and gets openai over WebSocket mode',
  async (t) => {
    const org = await newOrg();
    const overHttp = codexSetup(stack.baseURL, { key: org.key });
    t.teardown(() => overHttp.remove());
    const run = await overHttp.run('Say hello.');
    t.equal(run.code, 0, 'codex exits 0 (HTTP)');
    t.same(errors(run), []);
    t.ok(run.finalMessage, 'an answer (HTTP)');
    const overSocket = codexSetup(relay.baseURL, { key: org.key, websockets: true });
    t.teardown(() => overSocket.remove());
    const sockets = relay.sockets.length;
    const socketRun = await overSocket.run('Say hello.');
    t.equal(socketRun.code, 0, 'codex exits 0 (WebSocket)');
    t.ok(socketRun.finalMessage, 'an answer (WebSocket)');
    const socket = relay.sockets.at(-1)!;
    t.equal(relay.sockets.length - sockets, 1, 'Codex opened one WebSocket');
    t.equal(socket.headers['x-gateway-wire'], undefined, 'no profile header on the upgrade');
    const deltas = textDeltas(socket);
    t.ok(deltas.length > 0);
    t.ok(
      deltas.every((delta) => typeof delta.delta === 'string'),
      'the events are in profile openai',
    );
  },
);

const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id);
