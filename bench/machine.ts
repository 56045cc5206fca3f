// The machine the bench runs on: what it is, and how much CPU the hypervisor (steal) and other processes took from it during a cell.
import { readFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem } from 'node:os';
import { CLOCK_TICKS } from './processes.js';

export interface MachineInfo {
  cpus: number;
  cpuModel: string;
  node: string;
  kernel: string;
  memoryMb: number;
  loadAverage: number[];
}

/** Jiffies summed over all CPUs since boot, from the first line of /proc/stat. */
export interface CpuTotals {
  total: number;
  steal: number;
  /** Jiffies spent running anything (all but idle, iowait and steal). */
  busy: number;
}

export function machineInfo(): MachineInfo {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    node: process.version,
    kernel: release(),
    memoryMb: Math.round(totalmem() / 2 ** 20),
    loadAverage: loadavg(),
  };
}

export function readCpuTotals(): CpuTotals {
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1).map(Number);
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const steal = fields[7] ?? 0;
  return { total, steal, busy: total - (fields[3] ?? 0) - (fields[4] ?? 0) - steal };
}

/** Milliseconds of CPU time in a span of jiffies summed over all CPUs. */
export function jiffiesToMs(jiffies: number): number {
  return (jiffies * 1000) / CLOCK_TICKS;
}

/**
 * The share of the machine's CPU time that processes outside the bench used between two readings, in percent:
 * the machine's busy time less `ownMs`, the CPU time of the bench's own processes (servers and load generator).
 */
export function otherPercent(before: CpuTotals, after: CpuTotals, ownMs: number): number {
  const total = after.total - before.total;
  return total > 0 ? Math.max(0, ((jiffiesToMs(after.busy - before.busy) - ownMs) * 100) / jiffiesToMs(total)) : 0;
}

/** The share of the machine's CPU time the hypervisor gave to someone else between two readings, in percent. */
export function stealPercent(before: CpuTotals, after: CpuTotals): number {
  const total = after.total - before.total;
  return total > 0 ? ((after.steal - before.steal) * 100) / total : 0;
}
