// Whether any upstream replica can serve, for GET /ready when `server.ready_checks_upstream` is on: a
// GET of the flavor's health endpoint on every replica at once (its own connection, not the pool's:
// a probe never waits behind streams); ready when one answers 200. llama-server, vLLM, SGLang and TGI
// have GET /health (llama-server answers 503 while it loads the model); Ollama answers GET /api/version;
// any other OpenAI-compatible server, GET {base}/models. /ready's own cache (proxy/node/readiness.ts) keeps
// a load balancer's polling from reaching the upstream more than once a second.
import type { UpstreamFlavor } from './request-fields.js';
import { getStatus, type ProbeTarget } from './upstream-get.js';

/** The health URL of a replica given by its OpenAI base URL (e.g. http://host:8000/v1). */
export function healthUrl(baseUrl: string, flavor: UpstreamFlavor): string {
  const url = new URL(baseUrl);
  switch (flavor) {
    case 'vllm':
    case 'llama-server':
    case 'sglang':
    case 'tgi':
      return `${url.origin}/health`;
    case 'ollama':
      return `${url.origin}/api/version`;
    case 'openai':
      return `${url.origin}${url.pathname.replace(/\/+$/, '') || '/v1'}/models`;
  }
}

/** Resolves when a replica answers its health endpoint with 200; rejects, naming what each said, when none does. */
export async function anyReplicaHealthy(
  baseUrls: readonly string[],
  flavor: UpstreamFlavor,
  target: ProbeTarget,
): Promise<void> {
  await Promise.any(
    baseUrls.map(async (baseUrl) => {
      const url = healthUrl(baseUrl, flavor);
      const problem = await healthProblem(url, target);
      if (problem !== undefined) throw new Error(`${url}: ${problem}`);
    }),
  );
}

/**
 * What is wrong with a replica by its health endpoint now (/ready's probe, and the active health checks of
 * health-checks.ts): undefined when it answers 200, else the status it answered or why it did not answer.
 */
export async function healthProblem(url: string, target: ProbeTarget): Promise<string | undefined> {
  try {
    const status = await getStatus(url, target);
    return status === 200 ? undefined : `answered ${status}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
