// Config files written for a test, and the message of the ConfigError a load throws.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../config/errors.js';

/** A new folder for config files: `file(name, text)` writes one there and returns its path. */
export function configFolder(prefix: string): { dir: string; file(name: string, text: string): string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return {
    dir,
    file(name, text) {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    },
  };
}

/** The message of the ConfigError `action` throws; any other outcome fails. */
export function configError(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('no ConfigError');
}
