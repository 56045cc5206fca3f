// Counters over chat-completion requests. A request is `completed` when its response was sent
// to the end (error answers included) and `aborted` when the connection ended before that: the
// client went away, or a cut/stall/reset fault broke it. requests = completed + aborted + inFlight.
import type { ServerResponse } from 'node:http';

export interface SimStats {
  requests: number;
  completed: number;
  aborted: number;
  inFlight: number;
}

export class StatsCounter {
  private requests = 0;
  private completed = 0;
  private aborted = 0;

  /** Counts a request and, when its response closes, how it ended. */
  track(res: ServerResponse): void {
    this.requests++;
    res.once('close', () => {
      if (res.writableFinished) this.completed++;
      else this.aborted++;
    });
  }

  snapshot(): SimStats {
    const { requests, completed, aborted } = this;
    return { requests, completed, aborted, inFlight: requests - completed - aborted };
  }
}
