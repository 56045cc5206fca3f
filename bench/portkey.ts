// Portkey's open-source gateway (@portkey-ai/gateway) as a peer to compare with, when BENCH_PORTKEY_DIR points at an
// install of it (it is not one of this project's dependencies). Its `openai` provider with a custom host forwards the
// chat path to the sim; the sim's headers pass only when named in x-portkey-forward-headers.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startServer, type Launch, type ServerProcess } from './processes.js';
import { SIM_HEADER_NAMES } from './scenarios.js';

export interface PortkeyInstall {
  /** build/start-server.js of the package. */
  script: string;
  version: string;
}

/** The package in `dir`: an npm prefix it was installed under (node_modules/@portkey-ai/gateway), or the package itself. */
export function findPortkey(dir: string): PortkeyInstall | undefined {
  for (const root of [join(dir, 'node_modules', '@portkey-ai', 'gateway'), dir]) {
    const script = join(root, 'build', 'start-server.js');
    if (!existsSync(script)) continue;
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string };
    return { script, version: version ?? 'unknown' };
  }
  return undefined;
}

/** Starts Portkey on a free port; `--headless`: no console UI. */
export async function startPortkey(install: PortkeyInstall, launch: Launch): Promise<ServerProcess> {
  const port = await freePort();
  return startServer({
    name: 'portkey',
    args: [...launch.nodeArgs, install.script, `--port=${port}`, '--headless'],
    port,
    stopGraceMs: launch.stopGraceMs,
  });
}

/** What every request to Portkey carries: the provider, the sim as its host, and which of the client's headers to pass on. */
export function portkeyHeaders(simUrl: string): Record<string, string> {
  return {
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': `${simUrl}/v1`,
    'x-portkey-forward-headers': SIM_HEADER_NAMES.join(','),
    // The openai provider sends a bearer key; the sim asks for none.
    authorization: 'Bearer unused',
  };
}
