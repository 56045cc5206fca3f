// The signature of a webhook delivery: `gateway-signature: t=<unix seconds>,v1=<hex HMAC-SHA256>` over
// `<t>.<raw body>`, keyed with the endpoint's secret (its UTF-8 bytes, `whsec_…` included). A receiver
// checks it with `verifyWebhookSignature` (or the ten lines of it docs/billing.md shows): the digest in
// constant time, and the timestamp within a tolerance, so a captured delivery cannot be replayed later.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'gateway-signature';
export const EVENT_ID_HEADER = 'gateway-event-id';

/** The header's value for `body` sent at `timestampSeconds`. */
export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  return `t=${timestampSeconds},v1=${digest(secret, timestampSeconds, body)}`;
}

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Unix ms (default Date.now()). */
  now?: number;
}

/** Whether `header` signs `rawBody` with `secret`, at a time within the tolerance of now. */
export function verifyWebhookSignature(
  secret: string,
  header: string | undefined,
  rawBody: string,
  options: VerifyOptions = {},
): boolean {
  if (header === undefined) return false;
  const parts = new Map(
    header.split(',').map((part) => {
      const equals = part.indexOf('=');
      return [part.slice(0, equals).trim(), part.slice(equals + 1).trim()] as const;
    }),
  );
  const timestamp = Number(parts.get('t'));
  const signature = parts.get('v1') ?? '';
  if (!Number.isSafeInteger(timestamp) || !/^[0-9a-f]{64}$/.test(signature)) return false;
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(nowSeconds - timestamp) > (options.toleranceSeconds ?? 300)) return false;
  return timingSafeEqual(Buffer.from(signature, 'hex'), Buffer.from(digest(secret, timestamp, rawBody), 'hex'));
}

function digest(secret: string, timestampSeconds: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestampSeconds}.${body}`).digest('hex');
}
