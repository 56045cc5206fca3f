// The primary's side of the IPC channel: it holds the node's shared objects and answers the workers'
// calls of them, and relays every announcement to every worker. An object is made on its first call
// from its name, `kind` or `kind:parameter` (e.g. `rate-window:60`), by the factory of its kind.
import { isGatewayMessage, type CallMessage, type PrimaryMessage, type WorkerMessage } from './protocol.js';

/** Makes the shared object of a kind; `parameter` is what follows the colon in its name ('' when none). */
export type SharedObjectFactory = (parameter: string) => object;

/** A worker as the primary sees it (node:cluster's Worker). */
export interface WorkerChannel {
  send(message: PrimaryMessage): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
}

export class SharedHost {
  readonly #factories: Readonly<Record<string, SharedObjectFactory>>;
  readonly #objects = new Map<string, object>();
  readonly #workers = new Set<WorkerChannel>();

  constructor(factories: Readonly<Record<string, SharedObjectFactory>>) {
    this.#factories = factories;
  }

  /** Answers this worker's calls and relays its announcements; `onOther` gets its other messages. */
  attach(worker: WorkerChannel, onOther: (message: WorkerMessage) => void = () => {}): void {
    this.#workers.add(worker);
    worker.on('message', (message) => {
      if (!isGatewayMessage<WorkerMessage>(message)) return;
      if (message.gateway === 'call') this.#answer(worker, message);
      else if (message.gateway === 'publish') this.#relay(message.topic, message.value);
      else onOther(message);
    });
  }

  /** A worker that exited gets no more announcements. */
  detach(worker: WorkerChannel): void {
    this.#workers.delete(worker);
  }

  /** Sends an order to every worker. */
  order(order: 'drain' | 'cut'): void {
    for (const worker of this.#workers) send(worker, { gateway: 'order', order });
  }

  #relay(topic: string, value: unknown): void {
    for (const worker of this.#workers) send(worker, { gateway: 'publish', topic, value });
  }

  #answer(worker: WorkerChannel, call: CallMessage): void {
    let result: Promise<unknown>;
    try {
      const target = this.#object(call.object) as Record<string, unknown>;
      const method = target[call.method];
      if (typeof method !== 'function') throw new Error(`the shared ${call.object} has no method ${call.method}`);
      result = Promise.resolve(method.apply(target, call.args));
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      (value) => send(worker, { gateway: 'reply', id: call.id, result: value }),
      (error: unknown) =>
        send(worker, { gateway: 'reply', id: call.id, error: error instanceof Error ? error.message : String(error) }),
    );
  }

  #object(name: string): object {
    let object = this.#objects.get(name);
    if (object !== undefined) return object;
    const colon = name.indexOf(':');
    const kind = colon < 0 ? name : name.slice(0, colon);
    const factory = this.#factories[kind];
    if (factory === undefined) throw new Error(`no shared object of kind '${kind}'`);
    object = factory(colon < 0 ? '' : name.slice(colon + 1));
    this.#objects.set(name, object);
    return object;
  }
}

/** A worker that is exiting may refuse a message; it has no use for it any more. */
function send(worker: WorkerChannel, message: PrimaryMessage): void {
  try {
    worker.send(message);
  } catch {
    // The channel closed under us (the worker exits): the message had no one to reach.
  }
}
