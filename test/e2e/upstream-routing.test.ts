// Several replicas behind one gateway, seen from clients (docs/upstreams.md): a conversation's turns go to one
// replica whatever names it (prompt_cache_key, a session header, its opening), and with the active health
// checks GET /ready says whether some replica passed its last probe.
import t, { type Test } from 'tap';
import { startSim, type RunningSim } from '../../sim/server.js';
import { TestClock } from '../helpers/clock.js';
import { startStack, type Stack } from '../helpers/stack.js';

const json = { 'content-type': 'application/json' };

async function twoReplicas(t: Test, yaml = ''): Promise<{ stack: Stack; sims: RunningSim[] }> {
  const sims = [await startSim({ outputTokens: 3 }), await startSim({ outputTokens: 3 })];
  const stack = await startStack({ yaml, upstreamUrls: sims.map((sim) => `${sim.url}/v1`) });
  t.teardown(async () => {
    await stack.close();
    for (const sim of sims) await sim.close();
  });
  return { stack, sims };
}

/** How many requests each replica got while `send` ran. */
async function spread(sims: RunningSim[], send: () => Promise<unknown>): Promise<number[]> {
  const before = sims.map((sim) => sim.stats().requests);
  await send();
  return sims.map((sim, i) => sim.stats().requests - before[i]!);
}

const chat = (stack: Stack, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  fetch(`${stack.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { ...json, ...headers },
    body: JSON.stringify({ model: 'qwen3-8b', max_tokens: 3, ...body }),
  }).then(async (response) => {
    if (response.status !== 200) throw new Error(`${response.status} ${await response.text()}`);
    return response.json();
  });

t.test("a chat conversation's prompt_cache_key keeps its turns on one replica", async (t) => {
  const { stack, sims } = await twoReplicas(t);
  for (const conversation of ['c1', 'c2', 'c3']) {
    const sent = await spread(sims, async () => {
      for (let turn = 0; turn < 4; turn++)
        await chat(stack, { prompt_cache_key: conversation, messages: [{ role: 'user', content: `turn ${turn}` }] });
    });
    t.same(sent.toSorted(), [0, 4], `${conversation}: ${sent}`);
  }
});

t.test("a responses conversation's prompt_cache_key keeps its turns on one replica", async (t) => {
  const { stack, sims } = await twoReplicas(t);
  const sent = await spread(sims, async () => {
    for (let turn = 0; turn < 4; turn++) {
      const response = await fetch(`${stack.baseURL}/responses`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          model: 'qwen3-8b',
          input: `turn ${turn}`,
          prompt_cache_key: 'r1',
          max_output_tokens: 16,
        }),
      });
      t.equal(response.status, 200);
      await response.text();
    }
  });
  t.same(sent.toSorted(), [0, 4], `${sent}`);
});

t.test("an agent's session header keeps a messages conversation on one replica", async (t) => {
  const { stack, sims } = await twoReplicas(t);
  const sent = await spread(sims, async () => {
    for (let turn = 0; turn < 4; turn++) {
      const response = await fetch(`${stack.baseURL}/messages`, {
        method: 'POST',
        headers: { ...json, 'x-claude-code-session-id': 'session-1' },
        body: JSON.stringify({
          model: 'qwen3-8b',
          max_tokens: 3,
          messages: [{ role: 'user', content: `turn ${turn}` }],
        }),
      });
      t.equal(response.status, 200);
      await response.text();
    }
  });
  t.same(sent.toSorted(), [0, 4], `${sent}`);
});

t.test('without a key, the turns of a conversation that repeat its opening stay on one replica', async (t) => {
  const { stack, sims } = await twoReplicas(t);
  const opening = [
    { role: 'system', content: 'You answer briefly.' },
    { role: 'user', content: 'What is a prefix cache?' },
  ];
  const sent = await spread(sims, async () => {
    const messages: Array<Record<string, string>> = [...opening];
    for (let turn = 0; turn < 4; turn++) {
      await chat(stack, { messages });
      messages.push({ role: 'assistant', content: 'An answer.' }, { role: 'user', content: `Go on (${turn}).` });
    }
  });
  t.same(sent.toSorted(), [0, 4], `${sent}`);
});

t.test('with upstream.routing round_robin, the turns of one conversation alternate', async (t) => {
  const { stack, sims } = await twoReplicas(t, 'upstream:\n  routing: round_robin\n');
  const sent = await spread(sims, async () => {
    for (let turn = 0; turn < 4; turn++)
      await chat(stack, { prompt_cache_key: 'c1', messages: [{ role: 'user', content: `turn ${turn}` }] });
  });
  t.same(sent, [2, 2]);
});

t.test(
  '/ready with the active health checks: 503 once no replica passes its probe, 200 when one is back; each transition logged',
  async (t) => {
    const clock = new TestClock();
    const sims = [await startSim({}), await startSim({})];
    const stack = await startStack({
      yaml: 'server:\n  ready_checks_upstream: true\nupstream:\n  health_check_interval_ms: 25\n',
      upstreamUrls: sims.map((sim) => `${sim.url}/v1`),
      now: clock.now,
    });
    t.teardown(async () => {
      await stack.close();
      for (const sim of sims) await sim.close();
    });
    const ready = async (): Promise<number> => {
      clock.advance(1000); // past /ready's own one-second cache
      return (await fetch(`${stack.gateway.url}/ready`)).status;
    };
    t.equal(await ready(), 200);
    const downs = sims.map((sim) =>
      stack.logged(
        (entry) =>
          entry.msg === 'upstream replica failed its health check: out of the routing' &&
          entry.replica === `${sim.url}/v1`,
      ),
    );
    for (const sim of sims) await sim.setRefusing(true);
    await Promise.all(downs);
    t.equal(await ready(), 503);
    const back = stack.logged(
      (entry) =>
        entry.msg === 'upstream replica passed its health check: back in the routing' &&
        entry.replica === `${sims[1]!.url}/v1`,
    );
    await sims[1]!.setRefusing(false);
    t.match(await back, { replica: `${sims[1]!.url}/v1` });
    t.equal(await ready(), 200);
  },
);
