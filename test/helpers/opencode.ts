// The real OpenCode CLI (its native binary: npm package opencode-linux-x64, pinned in package.json) run headless
// against a gateway:
// `opencode run --format json -m gateway/MODEL WORDS…` in a fresh temporary directory holding the
// README's `opencode.json` (a custom provider through @ai-sdk/openai or @ai-sdk/openai-compatible), with
// its HOME and XDG directories there too and models.dev and updates off, so it talks to nothing but the gateway.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../config/package-root.js';
import { cliRuns, jsonLines } from './cli-runs.js';

/**
 * The native binary from the platform package that `opencode-ai` installs (`opencode-linux-x64`). The
 * project depends on that package directly, as an optional dependency: the registry this CI reaches has no
 * other platform's package, so a lock with `opencode-ai` (which lists all of them) fails `npm ci`.
 */
const OPENCODE = join(packageRoot(), 'node_modules', `opencode-${process.platform}-${process.arch}`, 'bin', 'opencode');
/** A run that takes longer than this is killed (a run here takes seconds: the sim answers at once). */
const TIMEOUT_MS = 90_000;

/** The provider packages OpenCode ships inside its binary (none is installed at run time). */
export type OpenCodeProvider = '@ai-sdk/openai' | '@ai-sdk/openai-compatible';

export interface OpenCodeSetup {
  /** The gateway's base URL with /v1. */
  baseURL: string;
  /** The gateway's `model.id`. */
  model: string;
  /** The model's context window (`model.max_context_tokens`). */
  contextTokens: number;
  /** The answer budget OpenCode asks for; without a limit it asks for 32000 tokens, more than a 32k window leaves. */
  outputTokens: number;
}

/** The README's `opencode.json`: a provider `gateway` whose key OpenCode reads from GATEWAY_API_KEY. */
export function openCodeConfig(setup: OpenCodeSetup, provider: OpenCodeProvider): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    provider: {
      gateway: {
        npm: provider,
        name: 'Gateway',
        options: { baseURL: setup.baseURL, apiKey: '{env:GATEWAY_API_KEY}' },
        models: {
          [setup.model]: { name: setup.model, limit: { context: setup.contextTokens, output: setup.outputTokens } },
        },
      },
    },
  };
}

/** What the tests add: no models.dev catalogue and no update check (nothing else is fetched). */
const ISOLATION: Readonly<Record<string, string>> = {
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_AUTOUPDATE: '1',
};

/** One line of `--format json`, as far as the tests read it. */
export interface OpenCodeEvent {
  type: string;
  part?: {
    type?: string;
    text?: string;
    tool?: string;
    state?: { status?: string; input?: Record<string, unknown>; output?: string };
    tokens?: OpenCodeTokens;
  };
  error?: { name: string; data?: { message?: string; statusCode?: number } };
}

/** A step's usage as OpenCode reports it (`step_finish`). */
export interface OpenCodeTokens {
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

export interface OpenCodeRun {
  /** The exit code (null when killed). */
  code: number | null;
  stderr: string;
  events: OpenCodeEvent[];
  /** The run's working directory (its opencode.json, where its tools ran). */
  dir: string;
}

export interface OpenCodeRunOptions {
  provider: OpenCodeProvider;
  /** The key OpenCode sends. */
  apiKey: string;
  /** Files written into the working directory first (name → text). */
  files?: Record<string, string>;
}

export interface OpenCode {
  /** `opencode run --format json`, to its end. The prompt is passed word by word: OpenCode quotes an argument with spaces. */
  run(prompt: string, options: OpenCodeRunOptions): Promise<OpenCodeRun>;
  /** Kills any run still going and removes the temporary directories. */
  close(): void;
}

export function startOpenCode(setup: OpenCodeSetup): OpenCode {
  const runs = cliRuns('opencode-test-');
  return {
    async run(prompt, options) {
      const base = runs.nextRunDir();
      const dir = join(base, 'work');
      const home = join(base, 'home');
      mkdirSync(dir, { recursive: true });
      mkdirSync(home, { recursive: true });
      writeFileSync(join(dir, 'opencode.json'), JSON.stringify(openCodeConfig(setup, options.provider), null, 2));
      for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        XDG_CONFIG_HOME: join(home, '.config'),
        XDG_DATA_HOME: join(home, '.local', 'share'),
        XDG_CACHE_HOME: join(home, '.cache'),
        XDG_STATE_HOME: join(home, '.local', 'state'),
        GATEWAY_API_KEY: options.apiKey,
        ...ISOLATION,
      };
      // --title: the session's title is given, so OpenCode makes no extra model call to write one.
      const args = ['run', '--format', 'json', '-m', `gateway/${setup.model}`, '--title', 'test', ...prompt.split(' ')];
      const { code, stdout, stderr } = await runs.run(OPENCODE, args, { cwd: dir, env, timeoutMs: TIMEOUT_MS });
      return { code, stderr, events: jsonLines<OpenCodeEvent>(stdout), dir };
    },
    close: () => runs.close(),
  };
}

/** The text OpenCode showed as the answer: its text parts, joined. */
export function answerOf(run: OpenCodeRun): string {
  return run.events
    .filter((event) => event.type === 'text')
    .map((event) => event.part?.text ?? '')
    .join('');
}

/** The usage of each model call, in order (one `step_finish` per call). */
export function stepTokens(run: OpenCodeRun): OpenCodeTokens[] {
  return run.events.flatMap((event) => (event.type === 'step_finish' && event.part?.tokens ? [event.part.tokens] : []));
}
