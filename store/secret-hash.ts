// What the store keeps of a secret that a client holds (an API key, a session cookie, a sign-in link's
// token, an OIDC state): its SHA-256 as lower-case hex, never the secret itself.
import { createHash } from 'node:crypto';

export function secretHash(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}
