// What turns a conversation into a token count inside the gateway's process: the model's own files
// (LocalModel) or a tiktoken encoding (TiktokenModel). A ModelSpec names one in plain data, so a
// worker thread can load the same model the main thread has.
import { LocalModel } from '../prompt/local-model.js';
import type { ModelFiles } from '../prompt/model-files.js';
import type { PromptInput } from '../prompt/prompt-input.js';
import type { TiktokenEncodingName } from './tiktoken-model.js';

export interface PromptModel {
  /** Synchronous and CPU-bound: about 0.2 ms per KB of prompt (bench/tokenize.ts). */
  count(input: PromptInput): number;
}

export type ModelSpec = { kind: 'local'; files: ModelFiles } | { kind: 'tiktoken'; encoding: TiktokenEncodingName };

/**
 * The cheap part of loading, done at start so that a bad config fails there: the local model's files
 * exist and its chat template compiles (tiktoken's encodings are named by the config's schema and
 * ship with the gateway). Throws an Error naming what is wrong.
 */
export function checkPromptModel(spec: ModelSpec): void {
  if (spec.kind === 'local') LocalModel.check(spec.files);
}

/** Loads once per thread and spec (later calls return the same model). */
export async function loadPromptModel(spec: ModelSpec): Promise<PromptModel> {
  switch (spec.kind) {
    case 'local':
      return LocalModel.load(spec.files);
    case 'tiktoken':
      // Loaded only for this kind: js-tiktoken is memory a node counting with its model's files never uses.
      return (await import('./tiktoken-model.js')).TiktokenModel.load(spec.encoding);
    default: {
      const never: never = spec;
      throw new Error(`unknown model kind ${JSON.stringify(never)}`);
    }
  }
}
