// The request bodies a node holds at once, bounded (`server.bodies_in_flight_bytes`). Each body is
// bounded alone (`server.body_limit_bytes`) and so are connections, but thousands of connections each
// sending a large body would still hold gigabytes: a request's body takes its bytes from one budget as they
// arrive (and its decoded bytes, when it came compressed) and gives them back when its exchange ends, its
// body being alive until then. A body that finds the budget spent is refused with a 503 and a retry-after:
// the node is full for a moment, the request is not at fault.

export class BodyBudget {
  readonly maxBytes: number;
  #used = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Bytes held by the bodies of the requests under way. */
  get used(): number {
    return this.#used;
  }

  /** One request's share, empty until its body arrives. */
  reservation(): BodyReservation {
    let held = 0;
    return {
      take: (bytes) => {
        if (this.#used + bytes > this.maxBytes) return false;
        this.#used += bytes;
        held += bytes;
        return true;
      },
      release: () => {
        this.#used -= held;
        held = 0;
      },
    };
  }
}

export interface BodyReservation {
  /** Takes `bytes` more for this request's body; false (nothing taken) when the node's budget would be exceeded. */
  take(bytes: number): boolean;
  /** Gives back all this request has taken; again is harmless. */
  release(): void;
}
