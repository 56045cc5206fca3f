// The real Codex CLI (0.169, pinned) against the gateway with the sim upstream, in both wire profiles, set up as the
// README documents it: `codex exec` with its default features, a shell-tool round trip, web search on the embedded
// demo corpus, and the model metadata it reads from GET /v1/models.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { codexSetup, type CodexRun } from '../helpers/codex.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
t.before(async () => {
  stack = await startStack({
    yaml: 'plugins:\n  - name: search\n    options: { provider: local }\ndialects:\n  responses:\n    function_tools: true\n',
  });
});
t.teardown(() => stack.close());

const errors = (run: CodexRun) =>
  run.events.filter((e) => e.type === 'error' || e.type === 'turn.failed' || e.item?.type === 'error');

for (const wire of ['spec', 'openai'] as const) {
  const setup = () => {
    const codex = codexSetup(stack.baseURL, { wire });
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
