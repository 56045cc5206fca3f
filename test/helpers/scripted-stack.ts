// A gateway in front of a scripted upstream (test/fakes/scripted-upstream.ts) that plays llama-server:
// flavor llama-server, a 4096-token context, both closed when the test ends.
import type { Test } from 'tap';
import { startScriptedUpstream, type ScriptedAnswer, type ScriptedUpstream } from '../fakes/scripted-upstream.js';
import { startStack, type Stack } from './stack.js';

export async function startScriptedStack(
  t: Test,
  answer: (body: Record<string, unknown>) => ScriptedAnswer,
  yaml = '',
): Promise<{ stack: Stack; upstream: ScriptedUpstream }> {
  const upstream = await startScriptedUpstream(answer);
  const stack = await startStack({
    yaml: `model:\n  max_context_tokens: 4096\nupstream:\n  flavor: llama-server\n${yaml}`,
    upstreamUrls: [upstream.baseUrl],
  });
  t.teardown(async () => {
    await stack.close();
    await upstream.close();
  });
  return { stack, upstream };
}
