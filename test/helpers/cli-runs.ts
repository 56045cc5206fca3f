// The runs of an agent CLI (Claude Code, OpenCode) under test: each in a fresh directory below one temporary root,
// its output collected, killed at its timeout, and every run still going killed (and the root removed) on close.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface CliOutput {
  /** The exit code; null when killed (the timeout). */
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliSpawn {
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
}

export interface CliRuns {
  /** A new directory for the next run (`<root>/run-<n>`, not yet created). */
  nextRunDir(): string;
  run(command: string, args: string[], options: CliSpawn): Promise<CliOutput>;
  close(): void;
}

export function cliRuns(prefix: string): CliRuns {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const running = new Set<ChildProcess>();
  let runs = 0;
  return {
    nextRunDir: () => join(root, `run-${++runs}`),
    run(command, args, { cwd, env, timeoutMs }) {
      const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      let stdout = '';
      let stderr = '';
      child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      return new Promise((resolve, reject) => {
        child.once('error', reject);
        child.once('close', (code) => {
          clearTimeout(timer);
          running.delete(child);
          resolve({ code, stdout, stderr });
        });
      });
    },
    close() {
      for (const child of running) child.kill('SIGKILL');
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The lines of `stdout` that are JSON, parsed (a CLI's event stream; other lines are passed over). */
export function jsonLines<T = unknown>(stdout: string): T[] {
  return stdout.split('\n').flatMap((line) => {
    if (line.trim() === '') return [];
    try {
      return [JSON.parse(line) as T];
    } catch {
      return [];
    }
  });
}
