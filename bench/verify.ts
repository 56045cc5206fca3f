// Before measuring: does each target answer each scenario as the numbers assume (20 content chunks, paced really paced)?
import { performance } from 'node:perf_hooks';
import { request } from 'undici';
import { CHAT_PATH, requestBody, requestHeaders, type Scenario } from './scenarios.js';
import type { Target } from './targets.js';

export interface Check {
  target: string;
  scenario: string;
  ok: boolean;
  detail: string;
}

/** The shortest a paced answer can take: (chunks - 1) gaps of 5 ms, less some timer slack. */
const PACED_MIN_MS = 19 * 5 * 0.9;

export async function verifyTarget(target: Target, scenario: Scenario): Promise<Check> {
  const start = performance.now();
  const response = await request(target.server.url + CHAT_PATH, { method: 'POST', headers: requestHeaders(scenario), body: requestBody(scenario, target.model) });
  const text = await response.body.text();
  const elapsedMs = performance.now() - start;
  const check = (ok: boolean, detail: string): Check => ({ target: target.name, scenario: scenario.name, ok, detail });
  if (response.statusCode !== 200) return check(false, `status ${response.statusCode}: ${text.slice(0, 200)}`);
  if (!scenario.stream) {
    const content = (JSON.parse(text) as { choices?: Array<{ message?: { content?: string } }> }).choices?.[0]?.message?.content;
    return check(typeof content === 'string' && content.length > 0, `content ${JSON.stringify(content?.slice(0, 40))}`);
  }
  const chunks = contentChunks(text);
  const paced = scenario.simHeaders['x-sim-itl-ms'] !== '0';
  const timing = `${elapsedMs.toFixed(1)} ms`;
  if (chunks !== scenario.chunks) return check(false, `${chunks} content chunks, expected ${scenario.chunks}`);
  if (paced && elapsedMs < PACED_MIN_MS) return check(false, `${chunks} content chunks in ${timing}: not paced (x-sim-itl-ms not applied?)`);
  return check(true, `${chunks} content chunks in ${timing}`);
}

/** SSE `data:` events whose first choice carries non-empty delta content. */
function contentChunks(text: string): number {
  let count = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const data = line.slice(5).trim();
    if (data === '[DONE]') continue;
    const chunk = JSON.parse(data) as { choices?: Array<{ delta?: { content?: string | null } }> };
    const content = chunk.choices?.[0]?.delta?.content;
    if (typeof content === 'string' && content.length > 0) count += 1;
  }
  return count;
}
