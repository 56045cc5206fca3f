// An upstream's answer too large to hold: written with backpressure, so how far it got shows whether
// the gateway read it all or hung up.
import type { ServerResponse } from 'node:http';

export interface Written {
  /** Bytes handed to the socket before it closed. */
  bytes: number;
  /** Whether the whole body went out. */
  whole: boolean;
}

/** Answers `status` with `bytes` of body; resolves when the response closes, ended or cut. */
export function writeHugeBody(res: ServerResponse, status: number, bytes: number): Promise<Written> {
  return new Promise((resolve) => {
    let sent = 0;
    res.on('close', () => resolve({ bytes: sent, whole: res.writableFinished }));
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes) });
    const chunk = Buffer.alloc(64 * 1024, ' ');
    const write = (): void => {
      while (sent < bytes && !res.destroyed) {
        const part = chunk.subarray(0, Math.min(chunk.length, bytes - sent));
        sent += part.length;
        if (!res.write(part)) return void res.once('drain', write);
      }
      if (sent >= bytes) res.end();
    };
    write();
  });
}
