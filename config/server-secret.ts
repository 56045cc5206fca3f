// A server secret (what seals or signs what clients carry back to the gateway): from an environment
// variable when it is set (every node of a deployment sets the same), else 32 random bytes made once and
// kept in the data directory (mode 0600) so that what was sealed before a restart still opens after it.
import { randomBytes } from 'node:crypto';
import { mkdir, link, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const MIN_ENV_SECRET = 16;

export interface ServerSecretSource {
  env: NodeJS.ProcessEnv;
  /** The variable that may hold it. */
  variable: string;
  dataDir: string;
  /** Its file in the data directory. */
  file: string;
  /** Who needs it, for the error messages (e.g. `search plugin`). */
  owner: string;
}

export async function loadServerSecret(source: ServerSecretSource): Promise<Buffer> {
  const { env, variable, dataDir, owner } = source;
  const fromEnv = env[variable];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (fromEnv.length < MIN_ENV_SECRET)
      throw new Error(`${owner}: ${variable} must hold at least ${MIN_ENV_SECRET} characters`);
    return Buffer.from(fromEnv, 'utf8');
  }
  const file = join(dataDir, source.file);
  const existing = await readSecretFile(file, owner);
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
  const created = await readSecretFile(file, owner);
  if (created === undefined) throw new Error(`${owner}: ${file} holds no secret`);
  return created;
}

async function readSecretFile(file: string, owner: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const hex = text.trim();
  if (!/^[0-9a-f]{64}$/i.test(hex))
    throw new Error(`${owner}: ${file} must hold 32 bytes in hex (delete it to make a new one)`);
  return Buffer.from(hex, 'hex');
}
