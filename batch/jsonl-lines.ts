// The lines of a JSONL byte stream, each with where it is in the stream (its byte offset and length, the line
// break left out), so a batch's line is read back from storage alone. Blank lines (a trailing newline, an
// empty line) are skipped; a `\r` before the break belongs to no line. Fed chunk by chunk (an upload as it
// arrives, written to storage at the same time), or read from a whole stream (`jsonlLines`).

export interface JsonlLine {
  /** 1-based, counting every line of the stream (what an error message names). */
  number: number;
  offset: number;
  length: number;
  text: string;
}

export class JsonlSplitter {
  readonly #maxLineBytes: number;
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Where the line being read starts, and where the next chunk starts, in the stream. */
  #lineStart = 0;
  #position = 0;
  #number = 0;

  /** A line longer than `maxLineBytes` throws a RangeError naming it. */
  constructor(maxLineBytes: number) {
    this.#maxLineBytes = maxLineBytes;
  }

  /** The lines the chunk completes. */
  push(chunk: Uint8Array): JsonlLine[] {
    const lines: JsonlLine[] = [];
    let buffer = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    for (;;) {
      const at = buffer.indexOf(LF);
      if (at === -1) {
        this.#hold(buffer);
        this.#position += buffer.length;
        return lines;
      }
      this.#hold(buffer.subarray(0, at));
      const line = this.#take();
      if (line !== undefined) lines.push(line);
      this.#position += at + 1;
      this.#lineStart = this.#position;
      buffer = buffer.subarray(at + 1);
    }
  }

  /** The last line, if the stream does not end with a break. */
  end(): JsonlLine | undefined {
    return this.#pendingBytes > 0 ? this.#take() : undefined;
  }

  #hold(part: Buffer): void {
    this.#pending.push(part);
    this.#pendingBytes += part.length;
    // One byte more may be the `\r` of a `\r\n`, which is no line's: #take checks the line without it.
    if (this.#pendingBytes > this.#maxLineBytes + 1) throw this.#tooLong(this.#number + 1);
  }

  #tooLong(number: number): RangeError {
    return new RangeError(`line ${number} is longer than ${this.#maxLineBytes} bytes`);
  }

  /** The line held so far, or undefined for a blank one. */
  #take(): JsonlLine | undefined {
    this.#number += 1;
    let line = Buffer.concat(this.#pending);
    this.#pending = [];
    this.#pendingBytes = 0;
    if (line.at(-1) === CR) line = line.subarray(0, -1);
    if (line.length > this.#maxLineBytes) throw this.#tooLong(this.#number);
    if (line.toString('latin1').trim() === '') return undefined;
    return { number: this.#number, offset: this.#lineStart, length: line.length, text: line.toString('utf8') };
  }
}

/** Every line of a whole stream. */
export async function* jsonlLines(chunks: AsyncIterable<Uint8Array>, maxLineBytes: number): AsyncGenerator<JsonlLine> {
  const splitter = new JsonlSplitter(maxLineBytes);
  for await (const chunk of chunks) yield* splitter.push(chunk);
  const last = splitter.end();
  if (last !== undefined) yield last;
}

const LF = 0x0a;
const CR = 0x0d;
