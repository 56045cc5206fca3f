// Sends a case's exact bytes with node:http over keep-alive sockets and reads the whole answer.
import { Agent, request } from 'node:http';
import type { FuzzCase } from './fuzz-case.js';
import { ROUTES } from './routes.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface Outcome {
  answer?: Answer;
  /** No (complete) answer: the socket error, or the time limit. */
  error?: string;
  ms: number;
}

interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body: Buffer | undefined;
  chunked: boolean;
}

/** Answers larger than this are cut (no route answers anywhere near it). */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export class Sender {
  readonly #origin: URL;
  readonly #agent: Agent;
  readonly #timeoutMs: number;

  constructor(baseUrl: string, concurrency: number, timeoutMs: number) {
    this.#origin = new URL(baseUrl);
    this.#agent = new Agent({ keepAlive: true, maxSockets: concurrency });
    this.#timeoutMs = timeoutMs;
  }

  async send(fuzzCase: FuzzCase): Promise<Outcome> {
    const started = performance.now();
    const spec: RequestSpec = {
      method: 'POST',
      path: ROUTES[fuzzCase.route].path,
      headers: fuzzCase.headers,
      body: fuzzCase.body,
      chunked: fuzzCase.chunked,
    };
    let outcome = await this.#attempt(spec, this.#agent);
    // A keep-alive socket the server closed while idle fails before any answer: that is the socket, not the
    // request (Node's documented retry case), so the request goes once more on a fresh connection.
    if (
      outcome.reusedSocket &&
      outcome.error !== undefined &&
      outcome.answer === undefined &&
      /ECONNRESET|EPIPE|socket hang up/.test(outcome.error)
    ) {
      outcome = await this.#attempt(spec, false);
    }
    const { reusedSocket: _, ...answered } = outcome;
    return { ...answered, ms: performance.now() - started };
  }

  /** GET a path (e.g. /health) on a fresh connection. */
  async get(path: string): Promise<Outcome> {
    const { reusedSocket: _, ...outcome } = await this.#attempt(
      { method: 'GET', path, headers: {}, body: undefined, chunked: false },
      false,
    );
    return outcome;
  }

  close(): void {
    this.#agent.destroy();
  }

  #attempt(spec: RequestSpec, agent: Agent | false): Promise<Outcome & { reusedSocket: boolean }> {
    const started = performance.now();
    const { method, path, body } = spec;
    return new Promise((resolve) => {
      const headers: Record<string, string | number> = { ...spec.headers };
      if (body !== undefined && !spec.chunked) headers['content-length'] = body.length;
      const req = request({ host: this.#origin.hostname, port: this.#origin.port, path, method, headers, agent });
      let answer: Answer | undefined;
      let settled = false;
      const finish = (error?: string): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({
          ...(answer !== undefined ? { answer } : {}),
          ...(error !== undefined ? { error } : {}),
          ms: performance.now() - started,
          reusedSocket: req.reusedSocket,
        });
      };
      const timer = setTimeout(() => {
        finish(`no complete answer within ${this.#timeoutMs} ms`);
        req.destroy();
      }, this.#timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size < MAX_ANSWER_BYTES) chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', () => {
          answer = { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) };
          finish();
        });
        res.on('error', (error) => finish(`answer cut: ${describe(error)}`));
        res.on('aborted', () => finish('answer cut: aborted'));
      });
      // An error after the whole answer arrived (the server closed while the body was still going out) changes nothing.
      req.on('error', (error) => finish(describe(error)));
      if (body === undefined) {
        req.end();
      } else if (spec.chunked) {
        // Several chunks, so the server sees a body that arrives in parts.
        const step = Math.max(1, Math.ceil(body.length / 3));
        for (let at = 0; at < body.length; at += step) req.write(body.subarray(at, at + step));
        req.end();
      } else {
        req.end(body);
      }
    });
  }
}

function describe(error: Error): string {
  const code = (error as NodeJS.ErrnoException).code;
  return code !== undefined ? `${code}: ${error.message}` : error.message;
}
