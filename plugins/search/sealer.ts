// Authenticated encryption of what the client carries for the gateway (AES-256-GCM, node:crypto): a
// search result's page (`encrypted_content`) and a citation's source (`encrypted_index`). The client
// sees opaque base64url; a value that was changed, or sealed under another secret or for another
// purpose, does not open.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** What a sealed value is for: one can never stand in for the other. */
export type SealPurpose = 'content' | 'index';

export class Sealer {
  readonly #key: Buffer;

  constructor(secret: Buffer) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'open-model-gateway', 'search-seal-v1', 32));
  }

  seal(purpose: SealPurpose, value: unknown): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(deflateRawSync(JSON.stringify(value))), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The sealed value, or undefined when the text was not sealed by this secret for this purpose, or was changed. */
  open(purpose: SealPurpose, text: string): unknown {
    const bytes = Buffer.from(text, 'base64url');
    if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION || bytes.toString('base64url') !== text)
      return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(1, 1 + IV_BYTES));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(bytes.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      return JSON.parse(inflateRawSync(plain).toString('utf8')) as unknown;
    } catch {
      return undefined;
    }
  }
}
