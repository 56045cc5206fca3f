// A plain Qwen3 forward pass (the computation of llama.cpp's src/models/qwen3.cpp, in float
// arithmetic), one token at a time with a KV cache: enough to check what a small model says
// before it is written, without llama.cpp.
import type { Matrix, Qwen3HyperParameters, Qwen3Weights } from './qwen3-model.js';

interface LayerCache {
  /** Per position: kvHeads × headDim keys (normed and rotated) and values. */
  keys: Float32Array[];
  values: Float32Array[];
}

export class Qwen3Forward {
  readonly #h: Qwen3HyperParameters;
  readonly #w: Qwen3Weights;
  readonly #cache: LayerCache[];
  /** Rows of the output matrix that are not all zero (the others give a logit of exactly 0). */
  readonly #outputRows: number[];
  #hidden: Float32Array | undefined;

  constructor(hparams: Qwen3HyperParameters, weights: Qwen3Weights, outputRows?: number[]) {
    this.#h = hparams;
    this.#w = weights;
    this.#cache = weights.blocks.map(() => ({ keys: [], values: [] }));
    this.#outputRows = outputRows ?? nonZeroRows(weights.output);
  }

  /** Rows of the output matrix that are not all zero, to share between passes over the same weights. */
  get outputRows(): number[] {
    return this.#outputRows;
  }

  /** Feeds the next token. */
  append(token: number): void {
    const h = this.#h;
    const position = this.#cache[0]?.keys.length ?? 0;
    let x = row(this.#w.tokenEmbedding, token);
    this.#w.blocks.forEach((block, layer) => {
      const cache = this.#cache[layer] as LayerCache;
      const normed = rmsNorm(x, block.attnNorm, h.rmsEpsilon);
      const q = multiply(block.q, normed);
      const k = multiply(block.k, normed);
      const v = multiply(block.v, normed);
      for (let head = 0; head < h.heads; head++) this.#normAndRotate(q, head, block.qNorm, position);
      for (let head = 0; head < h.kvHeads; head++) this.#normAndRotate(k, head, block.kNorm, position);
      cache.keys.push(k);
      cache.values.push(v);
      const attended = this.#attend(q, cache);
      x = sum(x, multiply(block.o, attended));
      const ffnIn = rmsNorm(x, block.ffnNorm, h.rmsEpsilon);
      const gate = multiply(block.gate, ffnIn);
      const up = multiply(block.up, ffnIn);
      const activated = gate.map((g, i) => silu(g) * (up[i] as number));
      x = sum(x, multiply(block.down, activated));
    });
    this.#hidden = rmsNorm(x, this.#w.outputNorm, h.rmsEpsilon);
  }

  /** The logits of the token after the last one fed. */
  logits(): Float32Array {
    if (this.#hidden === undefined) throw new Error('no token fed yet');
    const out = new Float32Array(this.#w.output.rows);
    const { cols, values } = this.#w.output;
    for (const r of this.#outputRows) {
      let total = 0;
      for (let c = 0; c < cols; c++) total += (values[r * cols + c] as number) * (this.#hidden[c] as number);
      out[r] = total;
    }
    return out;
  }

  /** Per-head RMSNorm, then NEOX RoPE: dimension i pairs with i + headDim/2 and turns by position · base^(−2i/headDim). */
  #normAndRotate(vectors: Float32Array, head: number, weights: Float32Array, position: number): void {
    const { headDim, ropeFreqBase, rmsEpsilon } = this.#h;
    const at = head * headDim;
    const normed = rmsNorm(vectors.subarray(at, at + headDim), weights, rmsEpsilon);
    const half = headDim / 2;
    for (let i = 0; i < half; i++) {
      const angle = position * ropeFreqBase ** ((-2 * i) / headDim);
      const [a, b] = [normed[i] as number, normed[i + half] as number];
      vectors[at + i] = a * Math.cos(angle) - b * Math.sin(angle);
      vectors[at + i + half] = a * Math.sin(angle) + b * Math.cos(angle);
    }
  }

  /** Causal attention of one query over every cached position; query heads share KV heads in groups (GQA). */
  #attend(q: Float32Array, cache: LayerCache): Float32Array {
    const { heads, kvHeads, headDim } = this.#h;
    const out = new Float32Array(heads * headDim);
    const scale = 1 / Math.sqrt(headDim);
    for (let head = 0; head < heads; head++) {
      const kvAt = Math.floor(head / (heads / kvHeads)) * headDim;
      const scores = cache.keys.map((key) => {
        let dot = 0;
        for (let i = 0; i < headDim; i++) dot += (q[head * headDim + i] as number) * (key[kvAt + i] as number);
        return dot * scale;
      });
      const max = Math.max(...scores);
      const weights = scores.map((s) => Math.exp(s - max));
      const total = weights.reduce((a, b) => a + b, 0);
      cache.values.forEach((value, position) => {
        const weight = (weights[position] as number) / total;
        for (let i = 0; i < headDim; i++) {
          const at = head * headDim + i;
          out[at] = (out[at] as number) + weight * (value[kvAt + i] as number);
        }
      });
    }
    return out;
  }
}

function nonZeroRows(matrix: Matrix): number[] {
  const rows: number[] = [];
  for (let r = 0; r < matrix.rows; r++) {
    if (matrix.values.subarray(r * matrix.cols, (r + 1) * matrix.cols).some((v) => v !== 0)) rows.push(r);
  }
  return rows;
}

function row(matrix: Matrix, index: number): Float32Array {
  if (index < 0 || index >= matrix.rows) throw new Error(`token ${index} is outside the vocabulary`);
  return matrix.values.slice(index * matrix.cols, (index + 1) * matrix.cols);
}

function multiply(matrix: Matrix, vector: Float32Array): Float32Array {
  const out = new Float32Array(matrix.rows);
  for (let r = 0; r < matrix.rows; r++) {
    let total = 0;
    for (let c = 0; c < matrix.cols; c++)
      total += (matrix.values[r * matrix.cols + c] as number) * (vector[c] as number);
    out[r] = total;
  }
  return out;
}

function rmsNorm(x: Float32Array, weights: Float32Array, epsilon: number): Float32Array {
  const meanSquare = x.reduce((a, v) => a + v * v, 0) / x.length;
  const scale = 1 / Math.sqrt(meanSquare + epsilon);
  return x.map((v, i) => v * scale * (weights[i] as number));
}

function sum(a: Float32Array, b: Float32Array): Float32Array {
  return a.map((v, i) => v + (b[i] as number));
}

function silu(x: number): number {
  return x / (1 + Math.exp(-x));
}
