import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { RawData, WebSocket } from 'ws';
import type { Dialect, SocketConversation, WireProfile } from '../../core/dialect.js';
import { GatewayError } from '../../core/errors.js';
import { runExchange, type Door, type ExchangeRuntime } from '../exchange/run.js';
import type { InFlight } from '../node/in-flight.js';
import { nextRequestId } from '../../http/request-id.js';
import type { Route } from '../routing/router.js';
import { sendEventMessages, SocketReply, socketFrames } from './send-events.js';

export interface SocketSessionOptions extends ExchangeRuntime {
  /** A connection with no request under way and no message for this long is closed (1000). */
  idleTimeoutMs: number;
  /** Counts each response while it is under way (a draining node waits for it). */
  inFlight: InFlight;
}

/**
 * Request messages a connection may have waiting behind the one under way (OpenAI runs a connection's
 * responses one at a time); one more is refused with an error message, so a client cannot queue unbounded work.
 */
const MAX_QUEUED = 16;

/** WebSocket close code for a connection closed for being idle: 1000, a normal close. */
const IDLE_CLOSE = 1000;
/** WebSocket close code for a connection the node closes as it stops: 1001, going away. */
const GOING_AWAY = 1001;

/**
 * One client's WebSocket: each text message is a request, run as its own exchange through the same chain
 * as an HTTP request (the request hooks, the plugins' onion, the upstream), one at a time in the order
 * they came; its events go back as messages. A request that fails before its first event is answered
 * with one `error` message carrying the HTTP status and body the request would have had, and the
 * connection stays open for the next.
 */
export class SocketSession {
  readonly #ws: WebSocket;
  readonly #socket: Socket;
  readonly #req: IncomingMessage;
  readonly #route: Route;
  readonly #wire: WireProfile;
  readonly #options: SocketSessionOptions;
  readonly #conversation: SocketConversation;
  #tail: Promise<void> = Promise.resolve();
  #queued = 0;
  #current: AbortController | undefined;
  #idle: NodeJS.Timeout | undefined;
  #closed = false;
  /** The node drains: no request message is answered after the one under way. */
  #goingAway = false;

  constructor(
    ws: WebSocket,
    socket: Socket,
    req: IncomingMessage,
    route: Route & { dialect: Dialect },
    wire: WireProfile,
    options: SocketSessionOptions,
  ) {
    this.#ws = ws;
    this.#socket = socket;
    this.#req = req;
    this.#route = route;
    this.#wire = wire;
    this.#options = options;
    this.#conversation = route.dialect.socket!.open();
    ws.on('message', (data, isBinary) => this.#onMessage(data, isBinary));
    ws.on('close', () => {
      this.#closed = true;
      clearTimeout(this.#idle);
      this.#current?.abort();
    });
    ws.on('error', () => {
      // A protocol error (bad frame, message over the size limit): ws closes the connection itself.
    });
    this.#armIdle();
  }

  /** Ends the connection (the gateway is stopping): the request under way is aborted by the close. */
  terminate(): void {
    this.#ws.terminate();
  }

  /**
   * The node drains: the response under way is sent to its end, then the connection closes with 1001
   * (going away); request messages waiting behind it, or sent later, are not answered (a client sends
   * them again on its next connection, to another node).
   */
  goAway(): void {
    if (this.#goingAway) return;
    this.#goingAway = true;
    clearTimeout(this.#idle);
    if (this.#current === undefined) this.#ws.close(GOING_AWAY, 'going away');
  }

  #armIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#queued === 0) this.#ws.close(IDLE_CLOSE, 'idle');
    }, this.#options.idleTimeoutMs);
  }

  #onMessage(data: RawData, isBinary: boolean): void {
    clearTimeout(this.#idle);
    if (this.#queued > MAX_QUEUED) {
      this.#sendError(
        new GatewayError(
          'GW_ERR_REQUEST_INVALID',
          `Too many requests waiting on this connection (${MAX_QUEUED} at most): wait for a response to end before sending another.`,
        ),
        { 'x-request-id': nextRequestId() },
      );
      return;
    }
    this.#queued++;
    const text = isBinary ? undefined : rawText(data);
    this.#tail = this.#tail.then(async () => {
      await this.#answer(text);
      this.#queued--;
      if (this.#queued === 0 && !this.#closed && !this.#goingAway) this.#armIdle();
    });
  }

  /** One request message, answered in full (its events, or its error) before the next is read. */
  async #answer(text: string | undefined): Promise<void> {
    if (this.#closed || this.#goingAway) return;
    const controller = new AbortController();
    this.#current = controller;
    const leave = this.#options.inFlight.enter();
    try {
      await runExchange(
        this.#options,
        { id: nextRequestId(), req: this.#req, route: this.#route, signal: controller.signal, wire: this.#wire },
        this.#door(text),
      );
    } finally {
      this.#current = undefined;
      leave();
      if (this.#goingAway) this.#ws.close(GOING_AWAY, 'going away');
    }
  }

  /** The WebSocket door for one request message: its body is the message, its answer messages on this connection. */
  #door(text: string | undefined): Door {
    const reply = new SocketReply();
    const conversation = this.#conversation;
    return {
      reply,
      alwaysStreams: true,
      body: () => Promise.resolve(conversation.request(parseMessage(text))),
      // A WebSocket opens on a generation route only: no upload, no file, no whole JSON answer.
      bodyStream: () => {
        throw new GatewayError('GW_ERR_INTERNAL', 'A WebSocket request has no byte stream of its own.');
      },
      sendJson: () => {
        throw new GatewayError('GW_ERR_INTERNAL', 'A WebSocket request is always answered with events.');
      },
      sendBytes: () => {
        throw new GatewayError('GW_ERR_INTERNAL', 'A WebSocket request is always answered with events.');
      },
      sendStream: (exchange, encoder, events) =>
        sendEventMessages(
          this.#ws,
          this.#socket,
          encoder,
          events,
          conversation,
          reply,
          exchange.signal,
          exchange.answer,
        ),
      sendWarmUp: (encoder) => encoder.warmUp?.(socketFrames(this.#ws, conversation, reply)),
      sendError: (exchange, error) => this.#sendError(error, exchange.responseHeaders),
      endBroken: () => {},
      finalStatus: (aborted, failure) =>
        aborted && !reply.headersSent ? CLIENT_CLOSED : reply.headersSent ? reply.statusCode : (failure?.status ?? 200),
      finish: () => {},
    };
  }

  /**
   * A request refused before its first event: one `error` message with the HTTP status, the body the
   * route's dialect would have answered, and the headers (retry-after, rate limits), as OpenAI's
   * WebSocket mode sends them and Codex reads them (as the HTTP error of that request).
   */
  #sendError(error: GatewayError, headers: Record<string, string>): void {
    const rendered = this.#route.errors.renderError(error);
    this.#ws.send(JSON.stringify({ type: 'error', status: rendered.status, ...rendered.body, headers }));
  }
}

/** The status logged for a request whose client went away before its first event (nginx's 499). */
const CLIENT_CLOSED = 499;

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function parseMessage(text: string | undefined): unknown {
  if (text === undefined)
    throw new GatewayError('GW_ERR_REQUEST_MALFORMED_JSON', 'Request messages are JSON text messages, not binary.');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new GatewayError('GW_ERR_REQUEST_MALFORMED_JSON', 'The message is not valid JSON.');
  }
}
