// Whether a failed store call means the database cannot be reached right now (it is down, restarting,
// out of connections, or another process holds its write lock past the busy timeout), as opposed to a
// query that is wrong: the first is a 503 to a client, to be tried again; the second a bug.
import { StoreError } from './errors.js';

/** Errors of the socket to the database server. */
const NETWORK = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** PostgreSQL: shutting down (57P01, 57P02), starting up (57P03), too many connections (53300). */
const SERVER_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '53300']);
/** node-postgres' own errors of a connection that broke or never opened (they carry no code). */
const PG_CONNECTION =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

export function isUnreachable(error: unknown): boolean {
  if (error instanceof StoreError) return error.code === 'GW_ERR_STORE_UNAVAILABLE';
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK.has(code) || SERVER_UNAVAILABLE.has(code)) return true;
    if (code.startsWith('08')) return true; // PostgreSQL's connection exceptions
    if (code.startsWith('SQLITE_BUSY')) return true;
  }
  return PG_CONNECTION.test(error.message);
}
