// The admin token: read from the variable the config names, at least 16 characters, and compared in
// constant time (SHA-256 digests of equal length through timingSafeEqual, whatever the input's length).
import { createHash, timingSafeEqual } from 'node:crypto';

export const MIN_ADMIN_TOKEN_LENGTH = 16;

/** The admin token from the environment, or undefined (the admin listener stays off); a short one is refused. */
export function readAdminToken(tokenEnv: string, env: NodeJS.ProcessEnv): string | undefined {
  const token = env[tokenEnv];
  if (token === undefined || token === '') return undefined;
  if (token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new Error(
      `${tokenEnv} is too short: the admin token needs at least ${MIN_ADMIN_TOKEN_LENGTH} characters (e.g. openssl rand -hex 32)`,
    );
  }
  return token;
}

/** A checker for presented secrets against one expected secret, in constant time. */
export function secretMatcher(expected: string): (presented: string) => boolean {
  const digest = sha256(expected);
  return (presented) => timingSafeEqual(digest, sha256(presented));
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}
