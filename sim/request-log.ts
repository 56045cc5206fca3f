// The last requests the sim received, oldest first, for tests to inspect.

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed JSON body, the raw text when it is not JSON, undefined when there is none. */
  body: unknown;
  /** A chat request's delay before its answer's first byte, ms: the TTFT plus its prefill (first-token.ts). */
  firstTokenMs?: number;
}

export class RequestLog {
  private readonly items: RecordedRequest[] = [];

  constructor(private readonly capacity = 100) {}

  add(item: RecordedRequest): void {
    this.items.push(item);
    if (this.items.length > this.capacity) this.items.shift();
  }

  list(): RecordedRequest[] {
    return [...this.items];
  }
}
