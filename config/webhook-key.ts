// The server secret that seals webhook endpoints' signing secrets in the store (store/webhook-seal.ts):
// GATEWAY_WEBHOOK_SECRET when set (every node of a fleet sets the same), else 32 random bytes kept in
// the data directory's `webhook-secret` file (mode 0600).
import { loadServerSecret } from './server-secret.js';

export function loadWebhookKey(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<Buffer> {
  return loadServerSecret({
    env,
    variable: 'GATEWAY_WEBHOOK_SECRET',
    dataDir,
    file: 'webhook-secret',
    owner: 'webhook secrets',
  });
}
