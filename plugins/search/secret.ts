// The search plugin's server secret, which seals `encrypted_content` and `encrypted_index`: from the
// variable `secret_env` names when it is set (every node of a deployment sets the same), else 32 random
// bytes made once and kept in the data directory (`search-secret`, mode 0600) so that replays of
// earlier turns still open after a restart.
import { randomBytes } from 'node:crypto';
import { mkdir, link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const SECRET_FILE = 'search-secret';
const MIN_ENV_SECRET = 16;

export async function loadSearchSecret(env: NodeJS.ProcessEnv, variable: string, dataDir: string): Promise<Buffer> {
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < MIN_ENV_SECRET)
      throw new Error(`search plugin: ${variable} must hold at least ${MIN_ENV_SECRET} characters`);
    return Buffer.from(fromEnv, 'utf8');
  }
  const file = join(dataDir, SECRET_FILE);
  const existing = await readSecretFile(file);
  if (existing !== undefined) return existing;
  await mkdir(dataDir, { recursive: true });
  // Written aside, then linked into place: two nodes starting on one data directory agree on one secret.
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  await writeFile(temporary, randomBytes(32).toString('hex') + '\n', { mode: 0o600 });
  try {
    await link(temporary, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
  const created = await readSecretFile(file);
  if (created === undefined) throw new Error(`search plugin: ${file} holds no secret`);
  return created;
}

async function readSecretFile(file: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/i.test(hex))
    throw new Error(`search plugin: ${file} must hold 32 bytes in hex (delete it to make a new one)`);
  return Buffer.from(hex, 'hex');
}
