// The gateway's resident memory under hostile traffic: the fuzzer (`npm run fuzz`, its own gateway with the
// default chain on the embedded sim) sends its seeded cases, and its report gives the gateway's VmRSS
// before, after, and at most (VmHWM). Run after the load, on a quiet machine, so nothing else shares it.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export interface FuzzMemoryResult {
  cases: number;
  seed: number;
  beforeMb: number;
  afterMb: number;
  peakMb: number;
  /** The fuzz found failures (its exit status): the figure stands, the run is worth a look. */
  failed: boolean;
  /** The end of the fuzz's report when it failed (its findings and how to replay them), else ''. */
  findings: string;
}

const FUZZ_SCRIPT = fileURLToPath(new URL('../fuzz/run.js', import.meta.url));
const RSS_LINE = /gateway RSS: (\d+) MB before, (\d+) MB after, (\d+) MB at most/;

export async function measureFuzzMemory(cases: number, seed: number): Promise<FuzzMemoryResult> {
  const child = spawn(process.execPath, [FUZZ_SCRIPT, '--seed', String(seed), '--count', String(cases)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (output += text));
  const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
  const match = RSS_LINE.exec(output);
  if (match === null) throw new Error(`the fuzz run printed no memory line (exit ${status}):\n${output.slice(-2000)}`);
  return {
    cases,
    seed,
    beforeMb: Number(match[1]),
    afterMb: Number(match[2]),
    peakMb: Number(match[3]),
    failed: status !== 0,
    findings: status !== 0 ? output.slice(output.indexOf('findings by class')) : '',
  };
}
