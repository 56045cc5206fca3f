// The signature of the thinking the gateway hands a client (the message dialect's `signature`): an
// HMAC-SHA256 of the text under a key derived from the server secret, base64. A client passes thinking
// back in later turns; only text the gateway's model wrote, unchanged, verifies, so replayed thinking
// that reaches the model as its own earlier reasoning cannot be forged or edited.
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

const VERSION = 'v1';

export class ThinkingSigner {
  readonly #key: Buffer;

  constructor(secret: Buffer) {
    this.#key = Buffer.from(hkdfSync('sha256', secret, 'open-model-gateway', 'thinking-signature-v1', 32));
  }

  sign(thinking: string): string {
    return `${VERSION}.${this.#mac(thinking).toString('base64')}`;
  }

  /** Whether `signature` is this gateway's for exactly this text. */
  verifies(thinking: string, signature: string): boolean {
    const [version, mac, ...rest] = signature.split('.');
    if (version !== VERSION || mac === undefined || rest.length > 0) return false;
    const given = Buffer.from(mac, 'base64');
    const expected = this.#mac(thinking);
    return given.length === expected.length && given.toString('base64') === mac && timingSafeEqual(given, expected);
  }

  #mac(thinking: string): Buffer {
    return createHmac('sha256', this.#key).update(thinking, 'utf8').digest();
  }
}
