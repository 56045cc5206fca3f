// The token counter (issue #3): the prompt tokens the upstream will report for a canonical request,
// its messages and tools rendered with the generation prompt as vLLM's chat endpoint does. Three
// sources, chosen by `tokenizer.source` in the config:
// - upstream: the upstream's own tokenize endpoint (vLLM/SGLang `/tokenize`, llama-server
//   `/apply-template` + `/tokenize`); exact, one small request per count;
// - local: the model's tokenizer.json and chat template, in process; exact when they are the
//   files the upstream serves (the default: Qwen3's, which the embedded sim serves);
// - tiktoken: a ChatML rendering encoded by js-tiktoken; an approximation (`exact: false`).
// The in-process sources check their model here (files, chat template: a bad config fails at start)
// and load it when a count first needs it (in-process-counter.ts); large conversations are counted
// in a pool of worker threads, started with the first one (or warmUp()), each loading its own copy.
import type { TokenizerConfig } from '../config/types.js';
import { InProcessCounter } from './in-process-counter.js';
import { resolveModelFiles } from '../prompt/model-files.js';
import { checkPromptModel, loadPromptModel, type ModelSpec } from './prompt-model.js';
import type { TokenCounter, TokenCounterLog } from './counter.js';
import { tokenizeFlavorOf, UpstreamCounter } from './upstream-counter.js';

export interface TokenCounterContext {
  /** The upstream's OpenAI base URLs (`http://host:8000/v1`); the first one's origin serves `/tokenize`. */
  upstreamUrls: string[];
  upstreamApiKey?: string;
  /** The name the upstream serves the model under. */
  servedModel: string;
  /** The upstream's flavor (`upstream.flavor`, or the one it showed at start): the tokenize endpoints' default. */
  upstreamFlavor?: string;
  /** The largest tokenize answer read whole (`upstream.max_body_bytes`); 64 MiB, that key's default, if absent. */
  maxBodyBytes?: number;
  /** What tokenizer.local paths are relative to (the config file's folder); the working directory if absent. */
  baseDir?: string;
  log?: TokenCounterLog;
}

export async function createTokenCounter(config: TokenizerConfig, context: TokenCounterContext): Promise<TokenCounter> {
  switch (config.source) {
    case 'upstream':
      return new UpstreamCounter({
        baseUrl: upstreamBase(config, context),
        flavor: config.upstream.flavor ?? tokenizeFlavorOf(context.upstreamFlavor),
        apiKey: context.upstreamApiKey,
        servedModel: context.servedModel,
        ...(context.log !== undefined ? { log: context.log } : {}),
        addSpecial: config.upstream.add_special,
        timeoutMs: config.upstream.timeout_ms,
        maxBodyBytes: context.maxBodyBytes ?? 64 * 1024 * 1024,
      });
    case 'local':
      return inProcess(
        config,
        'local',
        true,
        { kind: 'local', files: resolveModelFiles(config.local, context.baseDir) },
        context.log,
      );
    case 'tiktoken':
      return inProcess(
        config,
        'tiktoken',
        false,
        { kind: 'tiktoken', encoding: config.tiktoken.encoding },
        context.log,
      );
    default: {
      const never: never = config.source;
      throw new Error(`unknown tokenizer.source ${String(never)}`);
    }
  }
}

function inProcess(
  config: TokenizerConfig,
  source: 'local' | 'tiktoken',
  exact: boolean,
  spec: ModelSpec,
  log: TokenCounterLog | undefined,
): TokenCounter {
  checkPromptModel(spec);
  return new InProcessCounter({
    source,
    exact,
    load: () => loadPromptModel(spec),
    spec,
    workers: config.workers,
    workerIdleMs: config.worker_idle_ms,
    workerHeapMb: config.worker_heap_mb,
    thresholdBytes: config.worker_threshold_bytes,
    log,
  });
}

function upstreamBase(config: TokenizerConfig, context: TokenCounterContext): string {
  if (config.upstream.url !== undefined) return config.upstream.url;
  const first = context.upstreamUrls[0];
  if (first === undefined)
    throw new Error('tokenizer.source upstream needs an upstream URL (upstream.urls or tokenizer.upstream.url)');
  return new URL(first).origin;
}
