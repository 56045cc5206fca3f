// Sends the queued webhook deliveries: every `pollMs` this node claims the attempts that are due (a
// lease in the store: no two nodes send one attempt), POSTs each event as JSON, signed, with its id in
// `gateway-event-id` (the same on every attempt: the receiver de-duplicates on it), and writes the
// outcome. A 2xx is delivered; anything else (another status, a timeout, a refused connection) fails
// the attempt, and the next one is queued after an exponential backoff until `maxAttempts`; an internal
// address the operator has not allowed fails it for good.
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signWebhook } from '../../notify/webhook-signature.js';
import type { DueDelivery, WebhookDeliveries } from '../../store/webhook-deliveries.js';
import type { WebhookSeal } from '../../store/webhook-seal.js';
import { InternalAddressError, postWebhook } from './webhook-post.js';

export interface RetryPolicy {
  maxAttempts: number;
  /** The wait after the first failure; doubled after each next one, up to `backoffMaxMs`. */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** How long one attempt may take, connection to the end of the answer's head. */
  timeoutMs: number;
}

export interface WebhookSenderParts {
  deliveries: WebhookDeliveries;
  seal: WebhookSeal;
  policy: RetryPolicy;
  /** How long a claimed attempt is this node's (longer than the timeout). */
  leaseMs: number;
  /** At most this many attempts per round. */
  batch: number;
  /** Whether endpoints may be on loopback, private or link-local addresses (webhook-post.ts). */
  allowPrivateNetworks: boolean;
  now: () => number;
}

/** The wait before attempt `attempt + 1`, after attempt `attempt` (1-based) failed. */
export function backoffMs(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.backoffMaxMs, policy.backoffBaseMs * 2 ** (attempt - 1));
}

export class WebhookSender {
  readonly #parts: WebhookSenderParts;

  constructor(parts: WebhookSenderParts) {
    this.#parts = parts;
  }

  /** One round: the due attempts claimed and sent; how many were. */
  async sendDue(): Promise<number> {
    const { deliveries, leaseMs, batch } = this.#parts;
    const due = await deliveries.claimDue(batch, leaseMs);
    await Promise.all(due.map((delivery) => this.#send(delivery)));
    return due.length;
  }

  async #send(delivery: DueDelivery): Promise<void> {
    const { deliveries, seal, policy, now } = this.#parts;
    const secret = seal.open(delivery.endpointId, delivery.sealedSecret);
    if (secret === undefined) {
      // Sealed under another key (GATEWAY_WEBHOOK_SECRET changed): retrying cannot help.
      await deliveries.failed(delivery, {
        responseStatus: null,
        error: 'the signing secret does not open with this node’s webhook key (GATEWAY_WEBHOOK_SECRET)',
      });
      return;
    }
    const body = JSON.stringify({
      id: delivery.eventId,
      type: delivery.type,
      created: Math.floor(delivery.eventCreatedAt / 1000),
      org_id: delivery.orgId,
      data: JSON.parse(delivery.payload) as unknown,
    });
    let responseStatus: number | null = null;
    let error: string | null = null;
    let retry = delivery.attempt < policy.maxAttempts;
    try {
      responseStatus = await postWebhook({
        url: delivery.url,
        headers: {
          'content-type': 'application/json',
          'user-agent': 'open-model-gateway-webhooks/1',
          [EVENT_ID_HEADER]: delivery.eventId,
          [SIGNATURE_HEADER]: signWebhook(secret, Math.floor(now() / 1000), body),
        },
        body,
        timeoutMs: policy.timeoutMs,
        allowPrivateNetworks: this.#parts.allowPrivateNetworks,
      });
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown);
      if (thrown instanceof InternalAddressError) retry = false;
    }
    if (responseStatus !== null && responseStatus >= 200 && responseStatus < 300) {
      await deliveries.delivered(delivery, responseStatus);
      return;
    }
    error ??= `the receiver answered ${responseStatus}`;
    await deliveries.failed(delivery, {
      responseStatus,
      error,
      ...(retry ? { retryAt: now() + backoffMs(policy, delivery.attempt) } : {}),
    });
  }
}
