// A stopping node's drain: stop taking work, let what is under way finish, cut what is left.
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import type { InFlight } from './in-flight.js';
import { stopAccepting } from '../../http/listen.js';
import type { SocketMode } from '../socket/socket-upgrade.js';

/**
 * After the cut, how long requests get to end on their own (each gets its error event at once, but a
 * client that does not read holds its stream behind a full buffer); then their connections are closed,
 * which ends them as a client that went away, and this long again for their ledger rows.
 */
const CUT_GRACE_MS = 2000;

/**
 * Once the requests are over, how long the connections left open (idle keep-alive ones, among them those
 * whose streams just ended) may still carry one more request before they are closed. A proxy reuses the
 * connection it put back last first: within this time it takes those, and each closes cleanly after its
 * answer (`connection: close`), instead of being closed under a request the proxy is just sending.
 */
const LINGER_MS = 1000;

export interface DrainParts {
  server: Server;
  inFlight: InFlight;
  sockets: SocketMode;
  /** Fails every upstream call under way and refuses new ones: what is left ends as on an upstream break. */
  cutUpstream(): void;
  log: Logger;
}

export interface DrainOptions {
  /** How long requests under way may take to finish (`server.drain_timeout_ms`); 0 cuts them at once. */
  timeoutMs: number;
  /** Aborted: cut what is left now (a second signal). */
  cut: AbortSignal;
}

/**
 * Drains a node: the listener stops accepting (every open connection closes after its next response,
 * an idle keep-alive one too: it stays open until a request comes on it or the drain is over),
 * WebSockets close with 1001 after the response under way, and the requests under way get up to
 * `timeoutMs` to finish, each settling its ledger row as it ends. What is left then (or at once, when
 * `cut` is aborted) is cut. Resolves, with every connection closed, to the number of requests that did
 * not end (their rows unsettled: 0 unless something hangs).
 */
export async function drainNode(parts: DrainParts, options: DrainOptions): Promise<number> {
  const { server, inFlight, sockets, log } = parts;
  inFlight.drain();
  const closed = stopAccepting(server);
  sockets.goAway();
  log.info({ requests: inFlight.count, websockets: sockets.open }, 'draining');
  const over = (): Promise<unknown> => Promise.all([inFlight.idle(), sockets.closed()]);
  if (!(await within(over(), options.timeoutMs, options.cut))) {
    const left = inFlight.count;
    parts.cutUpstream();
    if (left > 0)
      log.warn(
        { requests: left, reason: options.cut.aborted ? 'signal' : 'timeout' },
        options.cut.aborted ? 'aborted on a second signal' : 'aborted after the drain timeout',
      );
    if (!(await within(inFlight.idle(), CUT_GRACE_MS))) {
      server.closeAllConnections();
      sockets.close();
      await within(inFlight.idle(), CUT_GRACE_MS);
    }
  } else if (!(await within(closed, LINGER_MS))) await within(inFlight.idle(), options.timeoutMs, options.cut);
  server.closeAllConnections();
  sockets.close();
  await closed;
  const unsettled = inFlight.count;
  if (unsettled === 0) log.info('drained');
  else
    log.error(
      { requests: unsettled },
      'drained with requests that did not end: their holds stay until the orphan sweep',
    );
  return unsettled;
}

/** Whether `done` settles within `ms` (and before `cut` aborts). */
async function within(done: Promise<unknown>, ms: number, cut?: AbortSignal): Promise<boolean> {
  if (cut?.aborted) return false;
  let timer: NodeJS.Timeout | undefined;
  let onCut = (): void => {};
  const stopped = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    onCut = () => resolve(false);
    cut?.addEventListener('abort', onCut, { once: true });
  });
  try {
    return await Promise.race([done.then(() => true), stopped]);
  } finally {
    clearTimeout(timer);
    cut?.removeEventListener('abort', onCut);
  }
}
