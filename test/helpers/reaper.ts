// The servers a test file starts die with it. tap ends a file that ran past its timeout with SIGALRM (then
// SIGKILL): its teardown never runs, so the gateways, Redis, nginx and PostgreSQL it started would live on,
// holding ports and CPU for every file after it. Each helper that starts one registers its process here.
import type { ChildProcess } from 'node:child_process';

/** Each live process, with the signal that stops it at once. */
const live = new Map<number, NodeJS.Signals>();
let installed = false;

/** Kills `pid` with `signal` if this test process ends while it lives; returns the release, for a clean stop. */
export function reapOnExit(pid: number, signal: NodeJS.Signals = 'SIGKILL'): () => void {
  install();
  live.set(pid, signal);
  return () => live.delete(pid);
}

/** As reapOnExit, for a child this process spawned: released when it exits. */
export function reapChild(child: ChildProcess): void {
  if (child.pid === undefined) return;
  child.once('exit', reapOnExit(child.pid));
}

function killAll(): void {
  for (const [pid, signal] of live) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
  live.clear();
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once('exit', killAll);
  // tap's timeout: tap reports the file's open handles and SIGKILLs it 500 ms later.
  process.on('SIGALRM', killAll);
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killAll();
      process.removeListener(signal, onSignal);
      process.kill(process.pid, signal);
    };
    process.on(signal, onSignal);
  }
}
