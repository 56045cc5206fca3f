// A real llama.cpp llama-server for the upstream tests: the binary (LLAMA_SERVER_BIN, else the one
// upstream-tier/build-llama-server.sh builds once per machine and caches), started on a loopback
// port with a model, ready once /health answers 200, and stopped again.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { packageRoot } from '../config/package-root.js';

/** Output kept for the error when the server fails (the model loader is verbose). */
const OUTPUT_KEPT = 64 * 1024;

/**
 * The llama-server binary: LLAMA_SERVER_BIN, else what build-llama-server.sh prints (it builds
 * only when the cached binary is missing, which takes 15–20 minutes on two cores).
 */
export function llamaServerBinary(): Promise<string> {
  const fromEnvironment = process.env.LLAMA_SERVER_BIN;
  if (fromEnvironment) return Promise.resolve(fromEnvironment);
  const script = join(packageRoot(), 'upstream-tier', 'build-llama-server.sh');
  return new Promise((resolve, reject) => {
    execFile(script, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${script} failed: ${error.message}\n${stderr.slice(-4000)}`));
      else resolve(stdout.trim().split('\n').at(-1) ?? '');
    });
  });
}

export interface LlamaServerOptions {
  binary: string;
  model: string;
  port: number;
  /** `--ignore-eos`: the end-of-turn token is never sampled, every answer runs to max_tokens. */
  ignoreEos?: boolean;
  /** `-np`: how many requests it decodes at once. */
  parallel?: number;
  extraArgs?: readonly string[];
  /** How long to wait for /health (default 60 s). */
  readyTimeoutMs?: number;
}

export interface RunningLlamaServer {
  /** `http://127.0.0.1:PORT`; the OpenAI API is under `/v1`. */
  url: string;
  /** What it printed so far (the last 64 KiB). */
  output(): string;
  /** Resolves with the first line it prints from now on that matches (its log says what it did: `cancel task`, …). */
  printed(pattern: RegExp): Promise<string>;
  stop(): Promise<void>;
  /** SIGKILL, as a crash would end it, and the exit. */
  kill(): Promise<void>;
}

/** Starts llama-server and resolves once it serves; rejects with its output if it exits or is not ready in time. */
export async function startLlamaServer(options: LlamaServerOptions): Promise<RunningLlamaServer> {
  const args = [
    '-m',
    options.model,
    '--jinja',
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port),
    '-c',
    '4096',
    // One thread: with more, an idle core's spin-waiting makes each token several times slower on a busy machine.
    '-t',
    '1',
    ...(options.ignoreEos ? ['--ignore-eos'] : []),
    ...(options.parallel === undefined ? [] : ['-np', String(options.parallel)]),
    ...(options.extraArgs ?? []),
  ];
  const child = spawn(options.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let partialLine = '';
  const awaited = new Set<{ pattern: RegExp; resolve: (line: string) => void }>();
  const keep = (chunk: Buffer) => {
    const text = chunk.toString();
    output = (output + text).slice(-OUTPUT_KEPT);
    const lines = (partialLine + text).split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines)
      for (const waiter of awaited)
        if (waiter.pattern.test(line)) {
          awaited.delete(waiter);
          waiter.resolve(line);
        }
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const server: RunningLlamaServer = {
    url: `http://127.0.0.1:${options.port}`,
    output: () => output,
    printed: (pattern) => new Promise((resolve) => awaited.add({ pattern, resolve })),
    stop: () => stop(child),
    kill: () => kill(child),
  };
  try {
    await untilHealthy(server.url, child, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    await stop(child);
    throw new Error(`llama-server ${args.join(' ')}: ${(error as Error).message}\n${output.slice(-4000)}`, {
      cause: error,
    });
  }
  return server;
}

async function untilHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  let exited: string | undefined;
  child.once('error', (error) => (exited = `cannot run: ${error.message}`));
  child.once('exit', (code, signal) => (exited = `exited (${code ?? signal})`));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(exited);
    // 503 while the model loads; a refused connection before it listens.
    const status = await fetch(`${url}/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`not ready after ${timeoutMs} ms`);
}

/** SIGTERM, then SIGKILL if it has not exited within 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}
