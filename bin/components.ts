// Startup as components: each part of a node (the sim, the token counter, the upstream pool, the services,
// the plugins, the listeners) starts through one runner, in order, and closes in the reverse order, so a
// failed start closes what had started and the shutdown order is the start order, not hand-written.
import type { ReadinessCheck } from '../proxy/node/readiness.js';

export interface Component<Part> {
  readonly name: string;
  start(): Part | Promise<Part>;
  /** What GET /ready checks of the part once started (proxy/node/readiness.ts). */
  ready?(part: Part): readonly ReadinessCheck[];
  /** The part's base URL, when it listens. */
  url?(part: Part): string;
  /** Absent for a part that holds nothing once started. */
  close?(part: Part): void | Promise<void>;
}

interface Started {
  readonly name: string;
  readonly checks: () => readonly ReadinessCheck[];
  readonly url: string | undefined;
  readonly close: () => void | Promise<void>;
}

export class Components {
  readonly #started: Started[] = [];
  readonly #onAbandonError: (name: string, error: unknown) => void;

  /** `onAbandonError` hears a part that failed to close in `abandon`. */
  constructor(onAbandonError: (name: string, error: unknown) => void) {
    this.#onAbandonError = onAbandonError;
  }

  /** Starts the part after those already started. */
  async start<Part>(component: Component<Part>): Promise<Part> {
    const part = await component.start();
    this.#started.push({
      name: component.name,
      checks: () => component.ready?.(part) ?? [],
      url: component.url?.(part),
      close: () => component.close?.(part),
    });
    return part;
  }

  /** The started parts' readiness checks, in start order. */
  readinessChecks(): ReadinessCheck[] {
    return this.#started.flatMap((started) => started.checks());
  }

  /** The base URL of the started part of that name, if it listens. */
  urlOf(name: string): string | undefined {
    return this.#started.find((started) => started.name === name)?.url;
  }

  /** Closes every started part, the last started first; a part that fails to close stops the rest. */
  async close(): Promise<void> {
    for (let started = this.#started.pop(); started !== undefined; started = this.#started.pop()) await started.close();
  }

  /** After a start failed: closes what had started, the last first; a part that fails to close is reported and the rest still close. */
  async abandon(): Promise<void> {
    for (let started = this.#started.pop(); started !== undefined; started = this.#started.pop())
      await Promise.resolve()
        .then(started.close)
        .catch((error: unknown) => this.#onAbandonError(started.name, error));
  }
}
