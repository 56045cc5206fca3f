// Stripe's API and webhooks, for what the gateway uses (https://docs.stripe.com/api/checkout/sessions,
// https://docs.stripe.com/webhooks): `POST /v1/checkout/sessions` and `GET /v1/checkout/sessions/:id` with
// `Authorization: Bearer sk_…` and form-encoded bodies (`line_items[0][price_data][currency]=usd`, as the SDK
// sends them), answering Checkout Session objects; errors as `{error: {type, code?, param?, message}}` with
// Stripe's statuses (400 a missing or bad parameter, 401 a bad key, 404 no such session); an
// `Idempotency-Key` replays the first answer. A session's `url` is the fake's own Checkout page.
// Webhooks: completing a session builds the documented `checkout.session.completed` event and POSTs it to
// the endpoint as Stripe does (JSON, pretty-printed; `Stripe-Signature: t=<unix s>,v1=<HMAC-SHA256 of
// "t.body" under the whsec_ secret, hex>`), retrying with backoff on a non-2xx answer or no answer until
// one is 2xx. Test controls deliver an event again, twice at once, or with a forged or stale signature.
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StripeFakeOptions {
  secretKey: string;
  webhookSecret: string;
  /** Where events go (settable later: `fake.webhookUrl = …`). */
  webhookUrl?: string;
  /** The first retry's delay; each next one doubles, up to a second. */
  retryBaseMs?: number;
}

export type StripeObject = Record<string, unknown>;

export interface Delivery {
  eventId: string;
  /** The answer's status, or 0 when none came (refused, reset, the node gone). */
  status: number;
  body: string;
}

export interface SignatureOptions {
  /** Sign with another secret (a forgery). */
  secret?: string;
  /** The signed timestamp, Unix seconds (an old one is a replay past the tolerance). */
  timestamp?: number;
}

export interface StripeFake {
  url: string;
  webhookUrl: string | undefined;
  /** Every API request, decoded: method, path, form params. */
  readonly requests: Array<{ method: string; path: string; params: StripeObject }>;
  readonly sessions: Map<string, StripeObject>;
  /** Every webhook delivery attempt, in order. */
  readonly deliveries: Delivery[];
  /** Refuses the next API call with Stripe's error for an account that cannot take payments (then clears). */
  refuseNextCall(): void;
  /**
   * Pays a session (payment_status 'paid', or 'unpaid' for a pending asynchronous method) and delivers its
   * `checkout.session.completed` event, retrying like Stripe until it is answered 2xx; returns the event.
   */
  complete(sessionId: string, change?: { paymentStatus?: 'paid' | 'unpaid'; amountTotal?: number }): StripeObject;
  /** Builds an event of `type` about a session, without delivering it. */
  event(type: string, session: StripeObject): StripeObject;
  /** One delivery attempt of an event (no retry), signed as given. */
  deliver(event: StripeObject, signature?: SignatureOptions): Promise<Delivery>;
  /** One attempt with a body and header as given (a malformed payload). */
  deliverRaw(body: string, header: string): Promise<Delivery>;
  /** The first 2xx answer to the event (already in, or the next to come). */
  delivered(eventId: string): Promise<Delivery>;
  /** The first attempt of the event that was not answered 2xx (already made, or the next to be). */
  failed(eventId: string): Promise<Delivery>;
  /** The Stripe-Signature header of a body. */
  sign(body: string, signature?: SignatureOptions): string;
  close(): Promise<void>;
}

export async function startStripeFake(options: StripeFakeOptions): Promise<StripeFake> {
  const requests: StripeFake['requests'] = [];
  const sessions = new Map<string, StripeObject>();
  const idempotent = new Map<string, { status: number; body: StripeObject }>();
  const deliveries: Delivery[] = [];
  const waiting = new Set<{ matches: (delivery: Delivery) => boolean; resolve: (delivery: Delivery) => void }>();
  const awaitDelivery = (matches: (delivery: Delivery) => boolean): Promise<Delivery> => {
    const done = deliveries.find(matches);
    if (done !== undefined) return Promise.resolve(done);
    return new Promise((resolve) => waiting.add({ matches, resolve }));
  };
  const timers = new Set<NodeJS.Timeout>();
  const retryBaseMs = options.retryBaseMs ?? 25;
  let closed = false;
  let refuseNext = false;

  const server = createServer((req, res) => {
    void readBody(req).then((body) => answer(req, res, body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function answer(req: IncomingMessage, res: ServerResponse, body: string): void {
    const path = new URL(req.url ?? '/', url).pathname;
    if (req.method === 'GET' && path.startsWith('/checkout/')) {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><title>Stripe Checkout (fake)</title><h1 data-testid="fake-checkout">Pay</h1>`);
      return;
    }
    const params = decodeForm(body);
    requests.push({ method: req.method ?? 'GET', path, params });
    const send = (status: number, object: StripeObject): void => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${token(8)}` });
      res.end(JSON.stringify(object));
    };
    if (req.headers.authorization !== `Bearer ${options.secretKey}`)
      return send(401, stripeError('invalid_request_error', 'Invalid API Key provided.'));
    if (refuseNext) {
      refuseNext = false;
      return send(
        400,
        stripeError('invalid_request_error', 'Your account cannot currently make live charges.', 'account_invalid'),
      );
    }
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string' && idempotent.has(key)) {
      const first = idempotent.get(key)!;
      return send(first.status, first.body);
    }
    const [status, object] = route(req.method ?? 'GET', path, params);
    if (typeof key === 'string' && req.method === 'POST') idempotent.set(key, { status, body: object });
    send(status, object);
  }

  function route(method: string, path: string, params: StripeObject): [number, StripeObject] {
    if (method === 'POST' && path === '/v1/checkout/sessions') return createSession(params);
    const match = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(path);
    if (method === 'GET' && match) {
      const session = sessions.get(match[1]!);
      if (session === undefined)
        return [
          404,
          stripeError(
            'invalid_request_error',
            `No such checkout.session: '${match[1]}'`,
            'resource_missing',
            'session',
          ),
        ];
      return [200, session];
    }
    return [404, stripeError('invalid_request_error', `Unrecognized request URL (${method}: ${path}).`)];
  }

  function createSession(params: StripeObject): [number, StripeObject] {
    if (params.mode !== 'payment') return [400, missingOrInvalid('mode', params.mode === undefined)];
    const items = params.line_items;
    if (!Array.isArray(items) || items.length === 0) return [400, missingOrInvalid('line_items', true)];
    let total = 0;
    let currency: string | undefined;
    for (const [index, item] of (items as StripeObject[]).entries()) {
      const price = item.price_data as StripeObject | undefined;
      const unit = Number(price?.unit_amount);
      const quantity = Number(item.quantity ?? 1);
      if (price === undefined || !Number.isSafeInteger(unit) || unit < 1)
        return [400, missingOrInvalid(`line_items[${index}][price_data][unit_amount]`, price === undefined)];
      if (typeof price.currency !== 'string')
        return [400, missingOrInvalid(`line_items[${index}][price_data][currency]`, true)];
      total += unit * quantity;
      currency = price.currency;
    }
    const id = `cs_test_${token(24)}`;
    const now = Math.floor(Date.now() / 1000);
    const session: StripeObject = {
      id,
      object: 'checkout.session',
      amount_subtotal: total,
      amount_total: total,
      cancel_url: params.cancel_url ?? null,
      client_reference_id: params.client_reference_id ?? null,
      created: now,
      currency,
      customer: null,
      customer_details: null,
      customer_email: params.customer_email ?? null,
      expires_at: now + 86_400,
      livemode: false,
      metadata: (params.metadata as StripeObject | undefined) ?? {},
      mode: 'payment',
      payment_intent: null,
      payment_status: 'unpaid',
      status: 'open',
      success_url: params.success_url ?? null,
      url: `${url}/checkout/${id}`,
    };
    sessions.set(id, session);
    return [200, session];
  }

  function event(type: string, session: StripeObject): StripeObject {
    return {
      id: `evt_${token(24)}`,
      object: 'event',
      api_version: '2026-10-28.endive',
      created: Math.floor(Date.now() / 1000),
      data: { object: session },
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
    };
  }

  function sign(body: string, signature: SignatureOptions = {}): string {
    const timestamp = signature.timestamp ?? Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', signature.secret ?? options.webhookSecret)
      .update(`${timestamp}.${body}`)
      .digest('hex');
    return `t=${timestamp},v1=${v1}`;
  }

  async function deliverRaw(body: string, header: string, eventId = ''): Promise<Delivery> {
    let delivery: Delivery;
    try {
      const response = await fetch(fake.webhookUrl!, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': header,
        },
        body,
      });
      delivery = { eventId, status: response.status, body: await response.text() };
    } catch (error) {
      delivery = { eventId, status: 0, body: String((error as Error).cause ?? error) };
    }
    deliveries.push(delivery);
    for (const waiter of waiting)
      if (waiter.matches(delivery)) {
        waiting.delete(waiter);
        waiter.resolve(delivery);
      }
    return delivery;
  }

  function deliver(object: StripeObject, signature?: SignatureOptions): Promise<Delivery> {
    const body = JSON.stringify(object, null, 2);
    return deliverRaw(body, sign(body, signature), String(object.id));
  }

  /** Delivers until a 2xx, waiting longer after each failure (Stripe's retries, compressed). */
  function deliverUntilAnswered(object: StripeObject, attempt = 0): void {
    if (closed) return;
    void deliver(object).then((delivery) => {
      if (delivery.status >= 200 && delivery.status < 300) return;
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          deliverUntilAnswered(object, attempt + 1);
        },
        Math.min(retryBaseMs * 2 ** attempt, 1000),
      );
      timers.add(timer);
    });
  }

  const fake: StripeFake = {
    url,
    webhookUrl: options.webhookUrl,
    requests,
    sessions,
    deliveries,
    refuseNextCall: () => (refuseNext = true),
    complete(sessionId, change = {}) {
      const session = sessions.get(sessionId);
      if (session === undefined) throw new Error(`no session ${sessionId}`);
      const paid = (change.paymentStatus ?? 'paid') === 'paid';
      Object.assign(session, {
        status: 'complete',
        payment_status: paid ? 'paid' : 'unpaid',
        payment_intent: `pi_${token(24)}`,
        customer_details: { email: session.customer_email, name: null },
        ...(change.amountTotal === undefined ? {} : { amount_total: change.amountTotal }),
      });
      const completed = event('checkout.session.completed', structuredClone(session));
      deliverUntilAnswered(completed);
      return completed;
    },
    event: (type, session) => event(type, structuredClone(session)),
    deliver,
    deliverRaw: (body, header) => deliverRaw(body, header),
    delivered: (eventId) => awaitDelivery((d) => d.eventId === eventId && d.status >= 200 && d.status < 300),
    failed: (eventId) => awaitDelivery((d) => d.eventId === eventId && !(d.status >= 200 && d.status < 300)),
    sign,
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

function stripeError(type: string, message: string, code?: string, param?: string): StripeObject {
  return { error: { type, message, ...(code ? { code } : {}), ...(param ? { param } : {}) } };
}

function missingOrInvalid(param: string, missing: boolean): StripeObject {
  return missing
    ? stripeError('invalid_request_error', `Missing required param: ${param}.`, 'parameter_missing', param)
    : stripeError('invalid_request_error', `Invalid value for ${param}.`, 'parameter_invalid', param);
}

function token(bytes: number): string {
  return randomBytes(bytes).toString('base64url').replace(/[-_]/g, 'x').slice(0, bytes);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** `a[b][0][c]=v&…` (the SDK's encoding) as nested objects, numeric keys as arrays. */
export function decodeForm(body: string): StripeObject {
  const root: StripeObject = {};
  for (const [name, value] of new URLSearchParams(body)) {
    const keys = name.split(/\[|\]\[|\]/).filter((key) => key !== '');
    let node: Record<string, unknown> = root;
    keys.forEach((key, index) => {
      if (index === keys.length - 1) {
        node[key] = value;
        return;
      }
      const next = keys[index + 1]!;
      node[key] ??= /^\d+$/.test(next) ? [] : {};
      node = node[key] as Record<string, unknown>;
    });
  }
  return root;
}
