// The revocation bus of a node of several workers without Redis: an announcement goes to the primary,
// which relays it to every worker, so each worker's key cache drops a revoked key at once.
import { LocalRevocationBus } from '../store/revocations.js';
import type { PrimaryLink } from './primary-link.js';

const TOPIC = 'revocations';

export class LinkRevocationBus extends LocalRevocationBus {
  readonly #link: PrimaryLink;
  readonly #unsubscribe: () => void;

  constructor(link: PrimaryLink) {
    super();
    this.#link = link;
    this.#unsubscribe = link.subscribe(TOPIC, (keyId) => {
      if (typeof keyId === 'string') this.deliver(keyId);
    });
  }

  /** Delivered here at once (the next request on this worker already refuses the key), and to the others through the primary. */
  override async publish(keyId: string): Promise<void> {
    this.deliver(keyId);
    this.#link.publish(TOPIC, keyId);
  }

  override connected(): boolean {
    return this.#link.connected;
  }

  override async close(): Promise<void> {
    this.#unsubscribe();
    await super.close();
  }
}
