// Webhook signing secrets at rest: sealed (AES-256-GCM) with a key derived from the server's webhook
// secret (GATEWAY_WEBHOOK_SECRET, else the `webhook-secret` file in the data directory), so that a copy
// of the database alone cannot sign events. The gateway must read the secret back to sign, so it is
// sealed rather than hashed like API keys; the endpoint's id is the associated data, so a sealed secret
// moved to another endpoint does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class WebhookSeal {
  readonly #key: Buffer;

  constructor(serverSecret: Buffer) {
    this.#key = Buffer.from(hkdfSync('sha256', serverSecret, 'open-model-gateway', 'webhook-secret-v1', 32));
  }

  seal(endpointId: string, secret: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(endpointId));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The secret, or undefined when it was sealed under another key or for another endpoint. */
  open(endpointId: string, sealed: string): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(Buffer.from(endpointId));
      decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      return undefined;
    }
  }
}
