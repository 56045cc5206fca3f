// A CPU profile written by node's --cpu-prof, read back: where the process's time went, by function (self time) and
// by area (our code by folder, node's internals, each package, native calls, GC, idle).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The .cpuprofile format (Chrome DevTools' Profiler.Profile), the parts read here. */
interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
  }>;
  samples: number[];
  /** The monotonic clock at the start, microseconds (on Linux the clock process.hrtime reads, in every process). */
  startTime: number;
  /** Microseconds before each sample (the first: since startTime). */
  timeDeltas: number[];
}

/** A span of the monotonic clock (process.hrtime), microseconds: the part of a profile to read. */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

export interface ProfileEntry {
  name: string;
  ms: number;
  /** Share of the busy time (all but idle), percent. */
  pct: number;
}

export interface ProfileSummary {
  file: string;
  /** The samples read: those in the window, when one was given. */
  window: ProfileWindow | undefined;
  totalMs: number;
  idleMs: number;
  /** The functions with the most self time, busiest first. */
  functions: ProfileEntry[];
  /** Self time summed by area, busiest first (idle apart). */
  areas: ProfileEntry[];
}

/** The root of the compiled project (dist/), whose folders are "our code". */
const DIST_ROOT = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const TOP_FUNCTIONS = 25;
/** Native calls that write to a socket (stream_base's write family). */
const NATIVE_WRITE = /^(writev|writeBuffer|write\w*String)$/;
/** Native calls that read (fs and stream reads; a socket's reads mostly happen in libuv, under "(program)"). */
const NATIVE_READ = /^(read|readStart|readStop|readFileUtf8|readBuffer)$/;

/** The profiles node wrote in `dir` for the process `pid`: the main thread's first (its file names carry pid and thread). */
export function profilesOf(dir: string, pid: number): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const mine = names.filter((name) => name.endsWith('.cpuprofile') && name.includes(`.${pid}.`));
  const thread = (name: string): number => Number(name.split(`.${pid}.`)[1]?.split('.')[0] ?? Number.NaN);
  return mine
    .sort((a, b) => thread(a) - thread(b) || statSync(join(dir, a)).mtimeMs - statSync(join(dir, b)).mtimeMs)
    .map((name) => join(dir, name));
}

/** The profile's self time by function and by area, only the samples within `window` when given (the load, not the start). */
export function summarizeProfile(file: string, window?: ProfileWindow): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const areas = new Map<string, number>();
  let totalUs = 0;
  let idleUs = 0;
  // A sample's time is the delta to the next sample (the last one's is unknown, taken as 0).
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    const us = profile.timeDeltas[index + 1] ?? 0;
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined || us <= 0) return;
    if (window !== undefined && (at < window.fromUs || at > window.toUs)) return;
    totalUs += us;
    const area = areaOf(frame.functionName, frame.url);
    if (area === 'idle') {
      idleUs += us;
      return;
    }
    areas.set(area, (areas.get(area) ?? 0) + us);
    const name = `${frame.functionName || '(anonymous)'}${frame.url === '' ? '' : `  ${shortUrl(frame.url)}:${frame.lineNumber + 1}`}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  });
  const busyUs = totalUs - idleUs;
  const entries = (map: Map<string, number>): ProfileEntry[] =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .map(([name, us]) => ({ name, ms: us / 1000, pct: busyUs > 0 ? (us * 100) / busyUs : 0 }));
  return {
    file,
    window,
    totalMs: totalUs / 1000,
    idleMs: idleUs / 1000,
    functions: entries(functions).slice(0, TOP_FUNCTIONS),
    areas: entries(areas),
  };
}

export function profileReport(summary: ProfileSummary): string {
  const busyMs = summary.totalMs - summary.idleMs;
  const lines = [
    `${summary.file}`,
    `${summary.window === undefined ? 'the whole profile' : 'from the warm-up to the end of the time-to-first-byte pass'}: ${(summary.totalMs / 1000).toFixed(1)} s sampled: busy ${(busyMs / 1000).toFixed(1)} s, idle ${(summary.idleMs / 1000).toFixed(1)} s (${((summary.idleMs * 100) / Math.max(summary.totalMs, 1)).toFixed(0)}%); shares below are of the busy time`,
    '',
    `top ${summary.functions.length} functions by self time:`,
    ...summary.functions.map((entry) => `  ${row(entry)}  ${entry.name}`),
    '',
    'by area:',
    ...summary.areas.map((entry) => `  ${row(entry)}  ${entry.name}`),
  ];
  return lines.join('\n');
}

function row(entry: ProfileEntry): string {
  return `${entry.pct.toFixed(1).padStart(5)}%  ${entry.ms.toFixed(0).padStart(7)} ms`;
}

/**
 * The area of a frame: V8's pseudo-frames (idle, GC, "(program)": native code outside any JS call, such as libuv's
 * socket reads), native functions called from JS (no URL), node's own modules, a package (by name), our code (by
 * folder under dist/), anything else by its URL.
 */
function areaOf(functionName: string, url: string): string {
  if (functionName === '(idle)') return 'idle';
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(program)') return '(program): native code outside JS (libuv, socket reads, V8)';
  if (functionName === '(root)') return '(root)';
  if (url === '') {
    if (NATIVE_WRITE.test(functionName)) return 'native: socket writes';
    if (NATIVE_READ.test(functionName)) return 'native: reads';
    return 'native: other bindings (HTTP parser, crypto, timers, ...)';
  }
  if (url.startsWith('node:')) return 'node internals';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + '/node_modules/'.length).split('/');
    const name = parts[0]?.startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
    return `package ${name}`;
  }
  if (url.startsWith('file://')) {
    const path = relative(DIST_ROOT, fileURLToPath(url));
    if (!path.startsWith('..')) return `ours: ${path.split('/').slice(0, -1).join('/') || '.'}/`;
    return `other: ${url}`;
  }
  return `other: ${url}`;
}

/** Our files relative to dist/, a package's from its name on, anything else as it is. */
function shortUrl(url: string): string {
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  if (url.startsWith('file://')) {
    const path = relative(DIST_ROOT, fileURLToPath(url));
    return path.startsWith('..') ? url : path;
  }
  return url;
}
