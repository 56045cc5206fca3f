// The real-upstream tier's stack: llama.cpp's llama-server (built once per machine) serving the tiny
// Qwen3 model (generated once per source version), and a gateway in front of it with flavor
// llama-server, the auth and meter plugins, and one organization with a key and credits.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { packageRoot } from '../../config/package-root.js';
import type { Store } from '../../store/store.js';
import { llamaServerBinary, startLlamaServer, type RunningLlamaServer } from '../../upstream-tier/llama-server.js';
import { tinyQwen3 } from '../../upstream-tier/tiny-qwen3.js';
import { freePort } from '../helpers/free-port.js';
import { runGateway } from '../helpers/gateway-process.js';
import { orgWithKey } from '../helpers/org-key.js';
import { startStack, type Stack } from '../helpers/stack.js';

/**
 * A tier file's time limit: its own scenarios take a minute or two, but on a machine without a cached
 * llama-server the first file to start builds it (10–25 minutes on two cores; the others wait for it).
 */
export const TIER_TIMEOUT_MS = 40 * 60_000;

/** The name llama-server serves the model under: the `-m` argument as given. */
const MODEL_FILE = 'tiny-qwen3.gguf';

/**
 * The tiny model's file, written once for each version of the generator's sources (under the
 * system's temporary folder) and reused by every test file of the run.
 */
export function tinyModelFile(): string {
  const sources = join(packageRoot(), 'upstream-tier');
  const hash = createHash('sha256');
  for (const name of readdirSync(sources).sort()) hash.update(name).update(readFileSync(join(sources, name)));
  const folder = join(tmpdir(), 'open-model-gateway-tiny-qwen3', hash.digest('hex').slice(0, 16));
  const file = join(folder, MODEL_FILE);
  if (existsSync(file)) return file;
  mkdirSync(folder, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, tinyQwen3().file);
  renameSync(partial, file);
  return file;
}

export interface LlamaServerSettings {
  /** `--ignore-eos`: every answer runs to its max_tokens. */
  ignoreEos?: boolean;
  /** `-np`: slots. */
  parallel?: number;
  extraArgs?: readonly string[];
}

/** Starts llama-server with the tiny model on a free loopback port; stopped when the test ends. */
export async function startTinyLlama(t: Test, settings: LlamaServerSettings = {}): Promise<RunningLlamaServer> {
  const binary = await llamaServerBinary();
  const model = tinyModelFile();
  // llama-server names the model after its -m argument: run it from the model's folder.
  const server = await startLlamaServer({
    binary,
    model,
    port: await freePort(),
    ...settings,
  });
  t.teardown(() => server.stop());
  return server;
}

export interface LlamaStack {
  llama: RunningLlamaServer;
  stack: Stack;
  /** The gateway's base URL (no /v1). */
  url: string;
  /** A key of the organization `acme`, which has 100 credits. */
  key: string;
  orgId: string;
  store: Store;
}

export interface LlamaStackOptions extends LlamaServerSettings {
  /** More YAML for the gateway (merged over the tier's own). */
  yaml?: string;
  /** A llama-server already running (a test that kills and restarts it starts its own). */
  llama?: RunningLlamaServer;
  /** `upstream.flavor` as configured (default llama-server); null: unset, the gateway detects it. */
  flavor?: string | null;
  /** More `upstream:` settings, e.g. `cache_isolation: no_reuse`. */
  upstream?: readonly string[];
  /** The replicas' base URLs (…/v1) instead of the one llama-server's (several servers, or proxies before them). */
  upstreamUrls?: string[];
}

/**
 * llama-server and a gateway in front of it: flavor llama-server, responses function tools on, prices of a
 * micro-credit an input token and two an output token (so a ledger row's cost reads as its tokens).
 */
export async function startLlamaStack(t: Test, options: LlamaStackOptions = {}): Promise<LlamaStack> {
  const llama = options.llama ?? (await startTinyLlama(t, options));
  const stack = await startStack({
    upstreamUrls: options.upstreamUrls ?? [`${llama.url}/v1`],
    yaml: [
      'model:',
      `  upstream_name: ${MODEL_FILE}`,
      'upstream:',
      // A key the gateway has anyway, so that the section is never empty.
      '  api_key_env: GATEWAY_UPSTREAM_API_KEY',
      options.flavor === null ? '' : `  flavor: ${options.flavor ?? 'llama-server'}`,
      ...(options.upstream ?? []).map((line) => `  ${line}`),
      'dialects:',
      '  responses:',
      '    function_tools: true',
      'pricing: { input_per_mtok: 1, output_per_mtok: 2 }',
      options.yaml ?? '',
      'plugins:',
      '  - name: auth',
      '  - name: meter',
    ].join('\n'),
  });
  t.teardown(() => stack.close());
  const store = await stack.store();
  const org = await orgWithKey(store, 'acme', { credits: 100 });
  return { llama, stack, url: stack.gateway.url, key: org.key, orgId: org.id, store };
}

/** `gateway ledger check` over the stack's store: exit 0 when every balance equals its grants less its costs and holds. */
export function ledgerCheck(stack: Stack): { code: number | null; out: string; err: string } {
  return runGateway({ GATEWAY_DATA_DIR: stack.dataDir }, 'ledger', 'check');
}
