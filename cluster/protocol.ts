// The messages between a node's primary process and its workers (node:cluster's IPC channel, with the
// structured-clone serialization): calls of shared objects and their answers, announcements relayed to
// every worker, and the primary's orders. Every message carries `gateway` so that other users of the
// channel (prom-client's metrics requests) are told apart.

/** A worker calls a method of one of the primary's shared objects. */
export interface CallMessage {
  gateway: 'call';
  id: number;
  object: string;
  method: string;
  args: readonly unknown[];
}

/** The primary's answer to a call: its result, or the error's message. */
export interface ReplyMessage {
  gateway: 'reply';
  id: number;
  result?: unknown;
  error?: string;
}

/** An announcement on a topic: from a worker to the primary, which relays it to every worker (the sender too). */
export interface PublishMessage {
  gateway: 'publish';
  topic: string;
  value: unknown;
}

/** The primary's orders to a worker: drain (stop taking requests, let those under way end) or cut what is left. */
export interface OrderMessage {
  gateway: 'order';
  order: 'drain' | 'cut';
}

/** A worker tells the primary it listens, and where (its parts' URLs). */
export interface StartedMessage {
  gateway: 'started';
  urls: Record<string, string>;
}

export type WorkerMessage = CallMessage | PublishMessage | StartedMessage;
export type PrimaryMessage = ReplyMessage | PublishMessage | OrderMessage;

export function isGatewayMessage<Message extends { gateway: string }>(message: unknown): message is Message {
  return (
    typeof message === 'object' && message !== null && typeof (message as { gateway?: unknown }).gateway === 'string'
  );
}
