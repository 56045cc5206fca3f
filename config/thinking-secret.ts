// The server secret that signs thinking blocks (core/thinking-signer.ts) and derives the organizations'
// cache salts: GATEWAY_THINKING_SECRET when set (every node of a fleet sets the same), else 32 random bytes
// kept in the data directory's `thinking-secret` file (mode 0600).
import { loadServerSecret } from './server-secret.js';

export function loadThinkingSecret(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Buffer> {
  return loadServerSecret({
    env,
    variable: 'GATEWAY_THINKING_SECRET',
    dataDir,
    file: 'thinking-secret',
    owner: 'thinking signatures',
  });
}
