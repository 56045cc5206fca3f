// Key revocations as news: whoever revokes a key publishes its id, and every auth cache that listens drops
// it at once instead of waiting for its entry to expire. Alone, a node hears only itself; with Redis
// (redis-revocations.ts), every node sharing the store hears every revocation.

export type RevocationListener = (keyId: string) => void;

export interface RevocationBus {
  /** Announces that the key was revoked (after the store says so). */
  publish(keyId: string): Promise<void>;
  /** Calls the listener for every revocation announced from now on; returns the unsubscribe. */
  subscribe(listener: RevocationListener): () => void;
  /** Whether announcements travel now (a bus over Redis: its connections are up; GET /ready asks). */
  connected(): boolean;
  close(): Promise<void>;
}

/** The bus of a node alone: revocations reach this process's listeners. */
export class LocalRevocationBus implements RevocationBus {
  private readonly listeners = new Set<RevocationListener>();

  async publish(keyId: string): Promise<void> {
    this.deliver(keyId);
  }

  subscribe(listener: RevocationListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  connected(): boolean {
    return true;
  }

  /** Hands an announcement to every listener; one that throws does not stop the others. */
  protected deliver(keyId: string): void {
    for (const listener of this.listeners) {
      try {
        listener(keyId);
      } catch {
        // A listener's fault is its own; the announcement still reaches the rest.
      }
    }
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }
}
