// A Qwen3 model's shape and weights as llama.cpp's qwen3 architecture reads them (src/models/qwen3.cpp):
// token embedding, per block RMSNorm → attention with per-head q/k RMSNorm and NEOX RoPE → RMSNorm →
// SwiGLU, then a final RMSNorm and the output matrix. Matrices are row-major [out][in].

export interface Qwen3HyperParameters {
  vocabRows: number;
  embedding: number;
  layers: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  feedForward: number;
  contextLength: number;
  ropeFreqBase: number;
  rmsEpsilon: number;
}

export interface Matrix {
  rows: number;
  cols: number;
  /** rows × cols values, row by row. */
  values: Float32Array;
}

export interface Qwen3Block {
  attnNorm: Float32Array;
  q: Matrix;
  k: Matrix;
  v: Matrix;
  o: Matrix;
  /** Per-head RMSNorm weights (headDim values, shared by every head). */
  qNorm: Float32Array;
  kNorm: Float32Array;
  ffnNorm: Float32Array;
  gate: Matrix;
  up: Matrix;
  down: Matrix;
}

export interface Qwen3Weights {
  tokenEmbedding: Matrix;
  blocks: Qwen3Block[];
  outputNorm: Float32Array;
  output: Matrix;
}

export function zeroMatrix(rows: number, cols: number): Matrix {
  return { rows, cols, values: new Float32Array(rows * cols) };
}

/** Adds `value` at [row][col]. */
export function add(matrix: Matrix, row: number, col: number, value: number): void {
  if (row < 0 || row >= matrix.rows || col < 0 || col >= matrix.cols) {
    throw new Error(`[${row}][${col}] is outside a ${matrix.rows}×${matrix.cols} matrix`);
  }
  matrix.values[row * matrix.cols + col] = (matrix.values[row * matrix.cols + col] ?? 0) + value;
}
