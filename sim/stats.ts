// Counters over chat-completion requests. A request is `completed` when its response was sent
// to the end (error answers included) and `aborted` when the connection ended before that: the
// client went away, or a cut/stall/reset fault broke it. requests = completed + aborted + inFlight.
// `bytesSent` counts response bytes handed to the sockets, so a test can watch a stream's progress;
// `waitingForDrain` counts responses whose writer waits for 'drain' (the client's socket is full).
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface SimStats {
  requests: number;
  completed: number;
  aborted: number;
  inFlight: number;
  bytesSent: number;
  waitingForDrain: number;
}

export class StatsCounter {
  private requests = 0;
  private completed = 0;
  private aborted = 0;
  private closedBytes = 0;
  private waitingForDrain = 0;
  /** Responses in flight, with their socket's byte count when they started (sockets are reused). */
  private readonly active = new Map<ServerResponse, { socket: Socket | null; start: number }>();
  /** Callers of until() whose condition has not held yet. */
  private readonly waiting = new Set<{ holds: (stats: SimStats) => boolean; resolve: (stats: SimStats) => void }>();

  /** Counts a request and, when its response closes, how it ended. */
  track(res: ServerResponse): void {
    this.requests++;
    this.active.set(res, { socket: res.socket, start: res.socket?.bytesWritten ?? 0 });
    // The writers wait for 'drain' (sim/http-io.ts) only after a write found the socket full, and stop
    // listening once it came or the client left: the listener is the wait.
    res.on('newListener', (event) => {
      if (event !== 'drain') return;
      this.waitingForDrain++;
      this.changed();
    });
    res.on('removeListener', (event) => {
      if (event !== 'drain') return;
      this.waitingForDrain--;
      this.changed();
    });
    res.once('close', () => {
      this.closedBytes += this.sentBy(res);
      this.active.delete(res);
      if (res.writableFinished) this.completed++;
      else this.aborted++;
      this.changed();
    });
    this.changed();
  }

  snapshot(): SimStats {
    const { requests, completed, aborted, waitingForDrain } = this;
    let bytesSent = this.closedBytes;
    for (const res of this.active.keys()) bytesSent += this.sentBy(res);
    return { requests, completed, aborted, inFlight: requests - completed - aborted, bytesSent, waitingForDrain };
  }

  /** The stats once `holds` is true of them: now, or when a request next starts, waits for 'drain' or ends and it then is. */
  until(holds: (stats: SimStats) => boolean): Promise<SimStats> {
    const now = this.snapshot();
    if (holds(now)) return Promise.resolve(now);
    return new Promise((resolve) => this.waiting.add({ holds, resolve }));
  }

  private changed(): void {
    if (this.waiting.size === 0) return;
    const now = this.snapshot();
    for (const waiter of this.waiting) {
      if (!waiter.holds(now)) continue;
      this.waiting.delete(waiter);
      waiter.resolve(now);
    }
  }

  private sentBy(res: ServerResponse): number {
    const entry = this.active.get(res);
    return entry?.socket ? entry.socket.bytesWritten - entry.start : 0;
  }
}
