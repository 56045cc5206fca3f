// The node's counters when it runs several workers without Redis: one MemoryWindow in the primary process,
// which every worker calls (core/shared-objects.ts), so the workers together admit what one process would.
import type { SharedObjects } from '../../core/shared-objects.js';
import type { Counts, InputCharge, RateWindow, Settled } from './window.js';

/** The primary's object: its kind and the window's length in seconds (`rate-window:60`). */
export function sharedWindowName(windowSeconds: number): string {
  return `${SHARED_WINDOW_KIND}:${windowSeconds}`;
}

export const SHARED_WINDOW_KIND = 'rate-window';

export class SharedWindow implements RateWindow {
  readonly windowMs: number;
  readonly #shared: SharedObjects;
  readonly #name: string;

  constructor(shared: SharedObjects, windowSeconds: number) {
    this.windowMs = windowSeconds * 1000;
    this.#shared = shared;
    this.#name = sharedWindowName(windowSeconds);
  }

  open(orgId: string, requests: number): Promise<Counts> {
    return this.#shared.call(this.#name, 'open', [orgId, requests]);
  }

  chargeInput(orgId: string, estimate: number, limit: number): Promise<InputCharge> {
    return this.#shared.call(this.#name, 'chargeInput', [orgId, estimate, limit]);
  }

  settle(orgId: string, input: number | undefined, output: number | undefined): Promise<Settled> {
    return this.#shared.call(this.#name, 'settle', [orgId, input, output]);
  }
}
