// The tiny model's weights, set by hand: a state machine that says the answers of
// tiny-qwen3-answers.ts and nothing else. One block does it all.
//
// - Embedding: every token has 1 in the BIAS dimension; each token the machine reacts to has,
//   besides, 1 in a dimension of its own (its one-hot).
// - Attention: three heads look for trigger tokens anywhere before. The query is the BIAS
//   dimension and the key the trigger's one-hot, both in the lowest-frequency RoPE pair (3, 7),
//   which turns by 3e-5 rad a position, so the score does not depend on where the trigger is;
//   q_norm/k_norm make the score SCORE for a trigger and 0 for any other key (a zero key stays
//   zero through RMSNorm). The value is the trigger's one-hot, so the head writes ≈1 into its flag
//   when the trigger is there and 0 when not: TOOLS (`<tool_call>`, which the template writes into
//   the system prompt when tools are offered), TOOL_RESULT (`<tool_response>`), and OPEN_CALL,
//   which weighs `<tool_call>` +1 and `</tool_call>` −1 and so reads (opened − closed) / (opened +
//   closed): 0 while every call is closed, above 0 once the model has opened one.
// - Feed-forward: two SwiGLU units AND a current token with flags (the gate compares a sum of
//   dimensions to a multiple of BIAS: all of them went through the same RMSNorm, so they scale
//   together) and write a large value into a branch dimension. That value dominates the final
//   RMSNorm, so the branch's output row outvotes the bigram.
// - Output: each reacting token's one-hot raises its successor by CHAIN; BIAS gives the ranking
//   of everything else: `<|im_end|>` far ahead (unknown contexts end at once), then `"`, `}`, `{`
//   and `:` slightly above the rest, so that JSON under a grammar closes its strings and objects
//   soon (among tokens of equal logit llama.cpp's choice is arbitrary: `:\n\n` rather than `:`).
import { ANSWER, CONTINUATION, THINKING, TOOL_CALL } from './tiny-qwen3-answers.js';
import { add, zeroMatrix, type Qwen3HyperParameters, type Qwen3Weights } from './qwen3-model.js';

export const TINY_QWEN3: Qwen3HyperParameters = {
  vocabRows: 151936,
  embedding: 64,
  layers: 1,
  heads: 8,
  kvHeads: 4,
  headDim: 8,
  feedForward: 128,
  contextLength: 40960,
  ropeFreqBase: 1e6,
  rmsEpsilon: 1e-6,
};

/** Residual dimensions. */
const BIAS = 0;
const TOOLS = 1;
const TOOL_RESULT = 2;
const OPEN_CALL = 3;
const BRANCH_TOOL_CALL = 4;
const BRANCH_CALL_BODY = 5;
const FIRST_ONE_HOT = 8;

/** Logit a token's one-hot gives its successor, per unit of the normalised one-hot (≈4–6). */
const CHAIN = 20;
/** What `!` gives ` Hello`, the runner-up to `<|im_end|>` that `--ignore-eos` falls back on. */
const RUNNER_UP = 12;
/** The default ranking, per unit of the normalised BIAS. */
const DEFAULT_RANKING: ReadonlyArray<readonly [string, number]> = [
  ['<|im_end|>', 8],
  ['"', 2],
  ['}', 1.5],
  ['{', 1],
  [':', 1],
];
/** Attention score of a trigger key. */
const SCORE = 40;
/** Steepness of the SwiGLU gates: a condition missed by 0.3 (times the RMSNorm scale ≈4) gives silu(−24) ≈ 0. */
const GATE = 20;
/** Scale of the branch dimensions (they reach ≈100, against ≈1 for the rest). */
const BRANCH_SCALE = 0.5;
/** Output weight of a branch dimension (normalised, it is ≈8). */
const BRANCH_LOGIT = 10;

/** Token ids of single-token pieces; throws when a piece is not one token. */
export type TokenIdOf = (piece: string) => number;

/** Each reacting token and the one it leads to, as pieces. */
function successors(): Map<string, string> {
  const next = new Map<string, string>();
  const chain = (pieces: readonly string[]) => {
    for (let i = 0; i + 1 < pieces.length; i++) {
      const [token, successor] = [pieces[i] as string, pieces[i + 1] as string];
      const known = next.get(token);
      if (known !== undefined && known !== successor) throw new Error(`${JSON.stringify(token)} has two successors`);
      next.set(token, successor);
    }
  };
  // `\n` ends the generation prompt `<|im_start|>assistant\n` (thinking on).
  chain(['\n', ...THINKING, ...ANSWER]);
  chain([':', ...CONTINUATION]);
  // The `\n` after `<tool_call>` is the same token: there BRANCH_CALL_BODY overrides its successor.
  chain(TOOL_CALL.slice(0, 2));
  chain(TOOL_CALL.slice(2));
  return next;
}

export function tinyQwen3Weights(idOf: TokenIdOf): Qwen3Weights {
  const h = TINY_QWEN3;
  const oneHot = new Map<number, number>();
  const dimOf = (piece: string): number => {
    const id = idOf(piece);
    let dim = oneHot.get(id);
    if (dim === undefined) {
      dim = FIRST_ONE_HOT + oneHot.size;
      if (dim >= h.embedding) throw new Error('more reacting tokens than embedding dimensions');
      oneHot.set(id, dim);
    }
    return dim;
  };

  const output = zeroMatrix(h.vocabRows, h.embedding);
  for (const [token, next] of successors()) add(output, idOf(next), dimOf(token), CHAIN);
  add(output, idOf(CONTINUATION[0]), dimOf('!'), RUNNER_UP);
  for (const [piece, logit] of DEFAULT_RANKING) add(output, idOf(piece), BIAS, logit);
  add(output, idOf(TOOL_CALL[0]), BRANCH_TOOL_CALL, BRANCH_LOGIT);
  add(output, idOf(TOOL_CALL[2]), BRANCH_CALL_BODY, BRANCH_LOGIT);

  const block = {
    attnNorm: new Float32Array(h.embedding).fill(1),
    q: zeroMatrix(h.heads * h.headDim, h.embedding),
    k: zeroMatrix(h.kvHeads * h.headDim, h.embedding),
    v: zeroMatrix(h.kvHeads * h.headDim, h.embedding),
    o: zeroMatrix(h.embedding, h.heads * h.headDim),
    qNorm: new Float32Array(h.headDim).fill(1),
    kNorm: new Float32Array(h.headDim).fill(1),
    ffnNorm: new Float32Array(h.embedding).fill(1),
    gate: zeroMatrix(h.feedForward, h.embedding),
    up: zeroMatrix(h.feedForward, h.embedding),
    down: zeroMatrix(h.embedding, h.feedForward),
  };

  // A one-hot token's embedding, normalised by attn_norm: 1/rms of (1, 1, 0, …), what a value carries.
  const normalisedOneHot = 1 / Math.sqrt(2 / h.embedding + h.rmsEpsilon);
  const lowFrequency = h.headDim / 2 - 1;
  // q and k are single-dimension vectors, which RMSNorm makes √headDim; the score is q·k/√headDim.
  block.qNorm[lowFrequency] = 4;
  block.kNorm[lowFrequency] = SCORE / (4 * Math.sqrt(h.headDim));
  const detector = (head: number, triggers: ReadonlyArray<readonly [string, number]>, flag: number) => {
    const kvHead = head / (h.heads / h.kvHeads);
    if (!Number.isInteger(kvHead)) throw new Error(`head ${head} does not start a group of query heads`);
    add(block.q, head * h.headDim + lowFrequency, BIAS, 1);
    for (const [trigger, sign] of triggers) {
      add(block.k, kvHead * h.headDim + lowFrequency, dimOf(trigger), 1);
      add(block.v, kvHead * h.headDim, dimOf(trigger), sign);
    }
    add(block.o, flag, head * h.headDim, 1 / normalisedOneHot);
  };
  const openTag = TOOL_CALL[0];
  const closeTag = TOOL_CALL[TOOL_CALL.length - 2] as string;
  detector(0, [[openTag, 1]], TOOLS);
  detector(2, [['<tool_response>', 1]], TOOL_RESULT);
  detector(
    4,
    [
      [openTag, 1],
      [closeTag, -1],
    ],
    OPEN_CALL,
  );

  // Unit 0: at the `\n\n` that ends `</think>\n\n`, with tools offered and no tool result → `<tool_call>`.
  const endOfThinking = THINKING[THINKING.length - 1] as string;
  const unit = (index: number, terms: ReadonlyArray<readonly [number, number]>, threshold: number, branch: number) => {
    for (const [dim, weight] of terms) add(block.gate, index, dim, GATE * weight);
    add(block.gate, index, BIAS, -GATE * threshold);
    add(block.up, index, BIAS, 1);
    add(block.down, branch, index, BRANCH_SCALE);
  };
  unit(
    0,
    [
      [dimOf(endOfThinking), 1],
      [TOOLS, 1],
      [TOOL_RESULT, -1],
    ],
    1.5,
    BRANCH_TOOL_CALL,
  );
  // Unit 1: at a `\n` inside an open tool call → `{"` instead of `<think>`. OPEN_CALL is 1/(2k+1)
  // there, k being the closed `<tool_call>…</tool_call>` pairs before it: the template's tool
  // instructions alone hold 2, so it is at most 0.2, and 5 × 0.2 = 1 clears the threshold by 0.7.
  unit(
    1,
    [
      [dimOf(TOOL_CALL[1]), 1],
      [OPEN_CALL, 5],
    ],
    1.3,
    BRANCH_CALL_BODY,
  );

  const tokenEmbedding = zeroMatrix(h.vocabRows, h.embedding);
  for (let id = 0; id < h.vocabRows; id++) add(tokenEmbedding, id, BIAS, 1);
  for (const [id, dim] of oneHot) add(tokenEmbedding, id, dim, 1);

  return {
    tokenEmbedding,
    blocks: [block],
    outputNorm: new Float32Array(h.embedding).fill(1),
    output,
  };
}
