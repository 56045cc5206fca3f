// The Claude Agent SDK (@anthropic-ai/claude-agent-sdk, pinned in package.json) against a gateway:
// `query()` with the environment the README documents, which the SDK hands to the native Claude Code
// it spawns (from @anthropic-ai/claude-agent-sdk-linux-x64). Each query runs in fresh temporary
// directories (its working directory, HOME and config directory), with no settings files, no saved
// session, and telemetry, updates and every other non-essential request off.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, type Options, type SDKMessage, type SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';

export interface AgentSdkSetup {
  /** The gateway's base URL, without /v1. */
  baseUrl: string;
  /** The gateway's `model.id`. */
  model: string;
}

/** The README's environment for the Agent SDK, but for CLAUDE_CODE_MAX_OUTPUT_TOKENS (a test adds it or not). */
export function agentSdkEnvironment(setup: AgentSdkSetup, apiKey: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: setup.baseUrl,
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_MODEL: setup.model,
    ANTHROPIC_DEFAULT_OPUS_MODEL: setup.model,
    ANTHROPIC_DEFAULT_SONNET_MODEL: setup.model,
    ANTHROPIC_DEFAULT_HAIKU_MODEL: setup.model,
  };
}

/** What the tests add: no telemetry, error reports, update checks or other traffic beyond the gateway. */
const ISOLATION: Readonly<Record<string, string>> = {
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  DISABLE_AUTOUPDATER: '1',
};

export interface AgentQuery {
  /** Every message the query yielded, in order. */
  messages: SDKMessage[];
  /** The query's result (also yielded when it is an error). */
  result: SDKResultMessage | undefined;
  /** What the query threw: the SDK throws after an error result. */
  thrown: unknown;
}

export interface AgentQueryOptions {
  apiKey: string;
  /** Variables over the documented environment (e.g. CLAUDE_CODE_MAX_OUTPUT_TOKENS). */
  env?: Record<string, string>;
  /** Options of `query()` over the isolated ones (mcpServers, allowedTools, includePartialMessages…). */
  options?: Options;
}

export interface AgentSdk {
  /** `query({ prompt, options })`, to its end. */
  query(prompt: string, options: AgentQueryOptions): Promise<AgentQuery>;
  /** Removes the temporary directories. */
  close(): void;
}

export function startAgentSdk(setup: AgentSdkSetup): AgentSdk {
  const root = mkdtempSync(join(tmpdir(), 'claude-agent-sdk-test-'));
  let runs = 0;
  return {
    async query(prompt, { apiKey, env = {}, options = {} }) {
      const base = join(root, `run-${++runs}`);
      const cwd = join(base, 'work');
      const home = join(base, 'home');
      mkdirSync(cwd, { recursive: true });
      mkdirSync(join(home, '.claude'), { recursive: true });
      const messages: SDKMessage[] = [];
      let thrown: unknown;
      try {
        const answers = query({
          prompt,
          options: {
            cwd,
            env: {
              PATH: process.env.PATH ?? '/usr/bin:/bin',
              HOME: home,
              CLAUDE_CONFIG_DIR: join(home, '.claude'),
              ...ISOLATION,
              ...agentSdkEnvironment(setup, apiKey),
              ...env,
            },
            settingSources: [],
            persistSession: false,
            maxTurns: 4,
            ...options,
          },
        });
        for await (const message of answers) messages.push(message);
      } catch (error) {
        thrown = error;
      }
      const result = messages.findLast((message): message is SDKResultMessage => message.type === 'result');
      return { messages, result, thrown };
    },
    close() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
