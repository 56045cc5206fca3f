// The Python SDKs' scenario scripts (clients/python/scenarios/) run with the python of the cached virtual
// environment that clients/python/ensure-venv.sh makes (`.ci/run` exports it as PYTHON_CLIENTS; without
// it, the script is called here, so a fresh machine's `npm test` makes it too).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../../config/package-root.js';
import type { Store } from '../../store/store.js';

const run = promisify(execFile);
const folder = join(packageRoot(), 'clients', 'python');

/** One script per dialect: chat completions and responses through the openai SDK, messages through anthropic. */
export type PythonScript = 'chat_completions' | 'responses' | 'messages';

/** What a script is given (clients/python/scenarios/scenario.py says what each is). */
export interface ScenarioSettings {
  /** The gateway, without /v1. */
  base_url: string;
  api_key: string;
  model: string;
  prompt: string;
  tool_prompt: string;
  tool_result: string;
  only?: string[];
}

/** An exception a scenario raised: its class (the SDK's own for an HTTP error), the status and message. */
export interface Raised {
  class: string;
  module: string;
  status: number | null;
  message: string;
  body: unknown;
}

/** Prompt tokens in all (cache reads and writes included) and output tokens, as the SDK reported them. */
export interface ReportedUsage {
  input: number;
  output: number;
}

export type ScenarioResult = Record<string, unknown> & {
  raised?: Raised;
  /** The x-request-id of each request the scenario made, in order. */
  request_ids: Array<string | null>;
  /** Per request made, where the scenario reports usage. */
  usage?: ReportedUsage[];
};

let python: Promise<string> | undefined;

/** The python of the SDKs' virtual environment: PYTHON_CLIENTS, else what ensure-venv.sh prints (it installs once per machine). */
export function pythonClients(): Promise<string> {
  const given = process.env.PYTHON_CLIENTS;
  python ??= given
    ? Promise.resolve(given)
    : run('bash', [join(folder, 'ensure-venv.sh')], { encoding: 'utf8' }).then(({ stdout }) => stdout.trim());
  return python;
}

/**
 * Runs one script's scenarios against a gateway; each scenario's result by its name. The SDKs find the gateway
 * and the key in the variables the README gives users, and no other of the caller's OPENAI_* or ANTHROPIC_*.
 */
export async function runPythonScenarios(
  script: PythonScript,
  { base_url, api_key, ...settings }: ScenarioSettings,
): Promise<Record<string, ScenarioResult>> {
  const inherited = Object.entries(process.env).filter(
    ([name]) => !name.startsWith('OPENAI_') && !name.startsWith('ANTHROPIC_'),
  );
  const env = {
    ...Object.fromEntries(inherited),
    OPENAI_BASE_URL: `${base_url}/v1`,
    OPENAI_API_KEY: api_key,
    ANTHROPIC_BASE_URL: base_url,
    ANTHROPIC_API_KEY: api_key,
    PYTHONDONTWRITEBYTECODE: '1',
  };
  const { stdout } = await run(
    await pythonClients(),
    [join(folder, 'scenarios', `${script}.py`), JSON.stringify(settings)],
    { encoding: 'utf8', maxBuffer: 16 << 20, env },
  );
  return JSON.parse(stdout) as Record<string, ScenarioResult>;
}

/** The ledger's row of each request a scenario made, in the SDK's terms (prompt tokens in all, output tokens). */
export async function ledgerUsage(store: Store, result: ScenarioResult): Promise<Array<ReportedUsage | undefined>> {
  return Promise.all(
    result.request_ids.map(async (id) => {
      const row = await store.db
        .selectFrom('usage')
        .selectAll()
        .where('id', '=', id ?? '')
        .executeTakeFirst();
      return (
        row && { input: row.input_tokens + row.cache_read_tokens + row.cache_write_tokens, output: row.output_tokens }
      );
    }),
  );
}
