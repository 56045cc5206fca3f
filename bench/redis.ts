// A real redis-server for the full chain's shared rate-limit counters: its own process on a free loopback port, no
// persistence, stopped with the other servers at the end. Its CPU time is read from /proc like theirs, so what the
// gateway hands to Redis per request is counted, not hidden in another process.
import { execFileSync } from 'node:child_process';
import { freePort, startServer, type ServerProcess } from './processes.js';

export interface BenchRedis {
  /** For GATEWAY_REDIS_URL. */
  url: string;
  process: ServerProcess;
}

const REDIS_SERVER = 'redis-server';

/** The installed redis-server's version line, or undefined when there is none. */
export function redisServerVersion(): string | undefined {
  try {
    return execFileSync(REDIS_SERVER, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const process = await startServer({
    name: 'redis-server',
    command: REDIS_SERVER,
    args: ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--loglevel', 'warning'],
    port,
  });
  return { url: `redis://127.0.0.1:${port}`, process };
}
