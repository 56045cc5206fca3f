// A worker's side of the IPC channel to its node's primary: calls of the shared objects (each answered
// by its id), announcements on topics, and the primary's orders.
import type { SharedObjects } from '../core/shared-objects.js';
import { isGatewayMessage, type PrimaryMessage, type WorkerMessage } from './protocol.js';

/** The process's IPC channel, as node:cluster gives a worker: `process` itself. */
export interface IpcChannel {
  send?(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  on(event: 'disconnect', listener: () => void): unknown;
}

interface PendingCall {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export class PrimaryLink implements SharedObjects {
  readonly #channel: IpcChannel;
  readonly #pending = new Map<number, PendingCall>();
  readonly #topics = new Map<string, Set<(value: unknown) => void>>();
  readonly #orders = new Set<(order: 'drain' | 'cut') => void>();
  #nextId = 1;
  #lost = false;

  constructor(channel: IpcChannel) {
    this.#channel = channel;
    channel.on('message', (message) => {
      if (isGatewayMessage<PrimaryMessage>(message)) this.#receive(message);
    });
    // The primary is gone: nothing it held answers any more.
    channel.on('disconnect', () => {
      this.#lost = true;
      for (const call of this.#pending.values()) call.reject(new Error("the node's primary process is gone"));
      this.#pending.clear();
    });
  }

  call<Result>(object: string, method: string, args: readonly unknown[]): Promise<Result> {
    if (this.#lost) return Promise.reject(new Error("the node's primary process is gone"));
    const id = this.#nextId++;
    return new Promise<Result>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (result: unknown) => void, reject });
      this.#send({ gateway: 'call', id, object, method, args });
    });
  }

  /** Announces `value` on `topic` to every worker of the node (this one included, through the primary). */
  publish(topic: string, value: unknown): void {
    if (!this.#lost) this.#send({ gateway: 'publish', topic, value });
  }

  /** Calls `listener` for every announcement on `topic`; returns the unsubscribe. */
  subscribe(topic: string, listener: (value: unknown) => void): () => void {
    let listeners = this.#topics.get(topic);
    if (listeners === undefined) this.#topics.set(topic, (listeners = new Set()));
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  /** Calls `listener` with each order of the primary (drain, cut). */
  onOrder(listener: (order: 'drain' | 'cut') => void): void {
    this.#orders.add(listener);
  }

  /** Tells the primary this worker listens, with its parts' URLs. */
  started(urls: Record<string, string>): void {
    this.#send({ gateway: 'started', urls });
  }

  get connected(): boolean {
    return !this.#lost;
  }

  #send(message: WorkerMessage): void {
    this.#channel.send?.(message);
  }

  #receive(message: PrimaryMessage): void {
    if (message.gateway === 'reply') {
      const call = this.#pending.get(message.id);
      if (call === undefined) return;
      this.#pending.delete(message.id);
      if (message.error !== undefined) call.reject(new Error(message.error));
      else call.resolve(message.result);
    } else if (message.gateway === 'publish') {
      for (const listener of this.#topics.get(message.topic) ?? []) {
        try {
          listener(message.value);
        } catch {
          // A listener's fault is its own; the announcement still reaches the rest.
        }
      }
    } else {
      for (const listener of this.#orders) listener(message.order);
    }
  }
}
