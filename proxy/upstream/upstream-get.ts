// A small GET to the upstream outside the request path: what the gateway asks at start (the server's
// kind, its context, its slots) and /ready's health probe. undici's request() on its global dispatcher
// (already loaded for the pool; the global fetch() would load Node's own copy of undici, about 8 MB of
// resident memory), never a replica's own connections: a probe must not wait behind the streams.
import { request } from 'undici';
import { readCappedText } from '../../core/capped-text.js';

export interface ProbeTarget {
  /** The upstream's key, sent as `Authorization: Bearer` as on chat requests. */
  apiKey: string | undefined;
  /** The longest a probe may take, connecting included. */
  timeoutMs: number;
}

/** A props object, a model list, a version or a server's metrics: at most a few hundred KB; a longer answer is not one of these. */
const MAX_BODY_BYTES = 1024 * 1024;

/** The JSON a 200 answer holds; undefined for any other status, a body that is not JSON or too long, or no answer. */
export async function getJson(url: string, target: ProbeTarget): Promise<unknown> {
  try {
    const text = await getText(url, target);
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** The text of a 200 answer (a server's metrics, at most 1 MB); undefined for any other status, a longer body, or no answer. */
export async function getText(url: string, target: ProbeTarget): Promise<string | undefined> {
  try {
    const response = await request(url, probeOptions(target));
    if (response.statusCode !== 200) {
      await response.body.dump();
      return undefined;
    }
    return await readCappedText(response.body, MAX_BODY_BYTES);
  } catch {
    return undefined;
  }
}

/** The status of a GET, its body discarded; rejects when the upstream does not answer within the timeout. */
export async function getStatus(url: string, target: ProbeTarget): Promise<number> {
  const response = await request(url, probeOptions(target));
  await response.body.dump();
  return response.statusCode;
}

/**
 * A probe's request: its own connection, closed after it (`reset`), so a probe never rides a kept-alive connection
 * to a server that has stopped taking new ones and reports it up.
 */
function probeOptions(target: ProbeTarget) {
  return { headers: headersOf(target), signal: AbortSignal.timeout(target.timeoutMs), reset: true };
}

function headersOf(target: ProbeTarget): Record<string, string> {
  return target.apiKey ? { authorization: `Bearer ${target.apiKey}` } : {};
}
