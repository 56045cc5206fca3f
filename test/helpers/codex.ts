// The real Codex CLI (node_modules/.bin/codex, pinned) run headless against a gateway: `codex exec --json` with
// HOME and CODEX_HOME in a temp dir holding the config.toml the README documents, so it reaches nothing but
// the gateway on loopback (no update check, analytics or telemetry export).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { packageRoot } from '../../config/package-root.js';

const CODEX = join(packageRoot(), 'node_modules', '.bin', 'codex');
const KEY_VARIABLE = 'GATEWAY_KEY';
/** Far more than a run takes here (about a second); a hung CLI fails the test instead of the suite. */
const TIMEOUT_MS = 60_000;

export interface CodexSetup {
  /** The directory Codex works in (its cwd). */
  workDir: string;
  /** `resume`: the prompt continues the last session (`codex exec resume --last`) instead of starting one. */
  run(prompt: string, options?: { bypassSandbox?: boolean; resume?: boolean }): Promise<CodexRun>;
  /** Removes the temp dirs. */
  remove(): void;
}

/** One JSON event of `codex exec --json` (thread.started, item.completed, turn.completed, …). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the CLI's JSON lines, read loose; t.match checks them
export type CodexEvent = Record<string, any>;

export interface CodexRun {
  code: number | null;
  events: CodexEvent[];
  stderr: string;
  /** The text of the last agent_message item. */
  finalMessage: string | undefined;
}

/**
 * A CODEX_HOME whose config.toml points Codex at `baseURL` (the gateway + /v1) over the responses API, with the
 * key from command auth (which also makes Codex read its model metadata from GET /v1/models) and, when given,
 * the `x-gateway-wire` header.
 */
export function codexSetup(
  baseURL: string,
  options: {
    wire?: 'spec' | 'openai';
    key?: string;
    websockets?: boolean;
    /** The provider's `name` ("gateway" by default); Codex decides by it whether to compact remotely. */
    providerName?: string;
    /** `model_auto_compact_token_limit`: Codex compacts once the conversation's tokens reach it. */
    autoCompactTokenLimit?: number;
  } = {},
): CodexSetup {
  const root = mkdtempSync(join(tmpdir(), 'codex-e2e-'));
  const home = join(root, 'home');
  const codexHome = join(home, '.codex');
  const workDir = join(root, 'work');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(workDir);
  const headers = options.wire ? `http_headers = { "x-gateway-wire" = "${options.wire}" }\n` : '';
  const websockets = options.websockets ? 'supports_websockets = true\n' : '';
  const compactLimit =
    options.autoCompactTokenLimit !== undefined
      ? `model_auto_compact_token_limit = ${options.autoCompactTokenLimit}\n`
      : '';
  writeFileSync(
    join(codexHome, 'config.toml'),
    `model = "qwen3-8b"
model_provider = "gateway"
check_for_update_on_startup = false
${compactLimit}
[analytics]
enabled = false

[otel]
exporter = "none"
trace_exporter = "none"
metrics_exporter = "none"

[model_providers.gateway]
name = "${options.providerName ?? 'gateway'}"
base_url = "${baseURL}"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
${websockets}${headers}
[model_providers.gateway.auth]
command = "printenv"
args = ["${KEY_VARIABLE}"]
`,
  );
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: home,
    CODEX_HOME: codexHome,
    [KEY_VARIABLE]: options.key ?? 'sk-test',
    NO_COLOR: '1',
  };
  return {
    workDir,
    run: (prompt, runOptions = {}) =>
      runCodex(env, workDir, prompt, runOptions.bypassSandbox ?? false, runOptions.resume ?? false),
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

function runCodex(
  env: NodeJS.ProcessEnv,
  cwd: string,
  prompt: string,
  bypassSandbox: boolean,
  resume: boolean,
): Promise<CodexRun> {
  // The Linux sandbox needs helper binaries that Codex refuses to create under a temp CODEX_HOME, so a test that
  // runs a command bypasses it; the command runs in the test's own temp dir.
  const args = [
    'exec',
    '--json',
    '--skip-git-repo-check',
    ...(bypassSandbox ? ['--dangerously-bypass-approvals-and-sandbox'] : []),
    ...(resume ? ['resume', '--last'] : []),
    prompt,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(CODEX, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: TIMEOUT_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (data: Buffer) => (stdout += data.toString('utf8')));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      const events = stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as CodexEvent);
      const messages = events.filter((e) => e.type === 'item.completed' && e.item?.type === 'agent_message');
      resolve({ code, events, stderr, finalMessage: messages.at(-1)?.item.text as string | undefined });
    });
  });
}
