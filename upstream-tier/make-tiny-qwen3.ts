// Writes the tiny Qwen3 model (tiny-qwen3.ts) to a GGUF file:
//
//   node --import tsx upstream-tier/make-tiny-qwen3.ts OUT.gguf
//
// The file is written as OUT.gguf.partial and renamed, so an interrupted run never leaves a
// file that looks complete.
import { renameSync, writeFileSync } from 'node:fs';
import { tinyQwen3 } from './tiny-qwen3.js';

const out = process.argv[2];
if (out === undefined || process.argv.length !== 3) {
  process.stderr.write('usage: node --import tsx upstream-tier/make-tiny-qwen3.ts OUT.gguf\n');
  process.exit(2);
}
const started = performance.now();
const { file, margins } = tinyQwen3();
writeFileSync(`${out}.partial`, file);
renameSync(`${out}.partial`, out);
const smallest = Math.min(...[...margins.values()].flat().map((step) => step.margin));
process.stderr.write(
  `${out}: ${file.length} bytes in ${Math.round(performance.now() - started)} ms; ` +
    `${margins.size} answers checked, smallest winning margin ${smallest.toFixed(1)}\n`,
);
