// The search plugin's server secret, which seals `encrypted_content` and `encrypted_index`: from the
// variable `secret_env` names when it is set (every node of a deployment sets the same), else 32 random
// bytes made once and kept in the data directory (`search-secret`, mode 0600) so that replays of
// earlier turns still open after a restart.
import { loadServerSecret } from '../../config/server-secret.js';

export const SECRET_FILE = 'search-secret';

export function loadSearchSecret(env: NodeJS.ProcessEnv, variable: string, dataDir: string): Promise<Buffer> {
  return loadServerSecret({ env, variable, dataDir, file: SECRET_FILE, owner: 'search plugin' });
}
