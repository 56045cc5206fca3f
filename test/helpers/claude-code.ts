// The real Claude Code CLI (node_modules/.bin/claude, pinned in package.json) run headless against a
// gateway: `claude -p PROMPT --output-format json` (or `stream-json`) with the environment the README documents, each run
// in fresh temporary directories (its working directory, HOME and config directory), with telemetry,
// updates and every other non-essential request off, so it talks to nothing but the gateway.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../config/package-root.js';
import { cliRuns, jsonLines } from './cli-runs.js';

const CLAUDE = join(packageRoot(), 'node_modules', '.bin', 'claude');
/** A run that takes longer than this is killed (a run here takes seconds: the sim answers at once). */
const DEFAULT_TIMEOUT_MS = 90_000;

export interface ClaudeCodeSetup {
  /** The gateway's base URL, without /v1 (Claude Code adds /v1/messages). */
  baseUrl: string;
  /** A gateway key; Claude Code sends ANTHROPIC_API_KEY as `x-api-key`. */
  apiKey: string;
  /** The gateway's `model.id`. */
  model: string;
  /** The model's context window (`model.max_context_tokens`). */
  contextTokens: number;
  /** The largest max_tokens the gateway takes on /v1/messages (`dialects.messages.max_tokens`). */
  maxOutputTokens: number;
}

/** The environment the README documents for Claude Code in front of this gateway. */
export function claudeCodeEnvironment(setup: ClaudeCodeSetup): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: setup.baseUrl,
    ANTHROPIC_API_KEY: setup.apiKey,
    ANTHROPIC_MODEL: setup.model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: setup.model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: setup.model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: setup.model,
    CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(setup.maxOutputTokens),
    CLAUDE_CODE_MAX_CONTEXT_TOKENS: String(setup.contextTokens),
  };
}

/** What the tests add: no telemetry, error reports, update checks or other traffic beyond the gateway. */
const ISOLATION: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
};

/** The last line of `--output-format json`: the session's result. */
export interface ClaudeResult {
  type: 'result';
  subtype: string;
  is_error: boolean;
  result: string;
  num_turns: number;
  session_id: string;
  usage: Record<string, unknown>;
  modelUsage: Record<string, unknown>;
}

export interface ClaudeRun {
  /** The exit code (null when killed). */
  code: number | null;
  stdout: string;
  stderr: string;
  /** The session's result: the last line of stdout, parsed (in both formats). */
  json: ClaudeResult | undefined;
  /** Every JSON line of stdout: with `stream-json`, the session's messages as they came (system, assistant, user, result). */
  events: unknown[];
  /** What Claude Code wrote to its debug log (`--debug-file`): its warnings land there in headless mode. */
  debugLog: string;
  /** The run's working directory (where its tools ran). */
  dir: string;
  /** The run's config directory (CLAUDE_CONFIG_DIR). */
  configDir: string;
}

export interface RunOptions {
  /** Variables over the documented environment; `undefined` removes one. */
  env?: Record<string, string | undefined>;
  /** More arguments, e.g. ['--allowedTools', 'Bash']. */
  args?: string[];
  /** `json` (default): the result only; `stream-json`: every message of the session too (`events`). */
  format?: 'json' | 'stream-json';
  timeoutMs?: number;
}

export interface ClaudeCode {
  /** `claude -p PROMPT --output-format json|stream-json`, to its end. */
  run(prompt: string, options?: RunOptions): Promise<ClaudeRun>;
  /** Kills any run still going and removes the temporary directories. */
  close(): void;
}

export function startClaudeCode(setup: ClaudeCodeSetup): ClaudeCode {
  const runs = cliRuns('claude-code-test-');
  return {
    async run(prompt, options = {}) {
      const base = runs.nextRunDir();
      const dir = join(base, 'work');
      const home = join(base, 'home');
      const configDir = join(home, '.claude');
      const debugFile = join(base, 'debug.log');
      mkdirSync(dir, { recursive: true });
      mkdirSync(configDir, { recursive: true });
      const env: Record<string, string> = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        CLAUDE_CONFIG_DIR: configDir,
        ...ISOLATION,
        ...claudeCodeEnvironment(setup),
      };
      for (const [name, value] of Object.entries(options.env ?? {})) {
        if (value === undefined) delete env[name];
        else env[name] = value;
      }
      const format = options.format ?? 'json';
      const args = [
        '-p',
        prompt,
        '--output-format',
        format,
        ...(format === 'stream-json' ? ['--verbose'] : []),
        '--debug-file',
        debugFile,
        ...(options.args ?? []),
      ];
      const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const { code, stdout, stderr } = await runs.run(CLAUDE, args, { cwd: dir, env, timeoutMs });
      const events = jsonLines(stdout);
      return {
        code,
        stdout,
        stderr,
        json: events.at(-1) as ClaudeResult | undefined,
        events,
        debugLog: readText(debugFile),
        dir,
        configDir,
      };
    },
    close: () => runs.close(),
  };
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
