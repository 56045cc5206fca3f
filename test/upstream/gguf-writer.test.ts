// The GGUF writer's layout (ggml/include/gguf.h), read back field by field.
import t from 'tap';
import { float16Bits, float16Value } from '../../upstream-tier/float16.js';
import { GgufWriter } from '../../upstream-tier/gguf-writer.js';

/** Reads what the writer wrote, in the order the format defines. */
class Reader {
  #at = 0;
  readonly #view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get at(): number {
    return this.#at;
  }
  u8 = () => this.#view.getUint8(this.#step(1));
  i32 = () => this.#view.getInt32(this.#step(4), true);
  u32 = () => this.#view.getUint32(this.#step(4), true);
  f32 = () => this.#view.getFloat32(this.#step(4), true);
  u64 = () => Number(this.#view.getBigUint64(this.#step(8), true));
  string = () => {
    const length = this.u64();
    return new TextDecoder().decode(this.bytes.subarray(this.#step(length), this.#at));
  };
  #step(size: number): number {
    const at = this.#at;
    this.#at += size;
    return at;
  }
}

t.test('header, typed metadata, tensor infos and 32-byte aligned data', async (t) => {
  const writer = new GgufWriter();
  writer.addString('general.architecture', 'qwen3');
  writer.addUint32('qwen3.block_count', 1);
  writer.addFloat32('qwen3.rope.freq_base', 1e6);
  writer.addBool('tokenizer.ggml.add_bos_token', false);
  writer.addStringArray('tokenizer.ggml.tokens', ['a', 'é']);
  writer.addInt32Array('tokenizer.ggml.token_type', [1, -3]);
  writer.addFloat32Array('scores', [0.5]);
  writer.addTensor('norm', [3], 'F32', new Float32Array([1, 2, 3]));
  writer.addTensor('embedding', [2, 3], 'F16', new Float32Array([0, 1, -2, 0.5, 65504, 1e-8]));
  const file = writer.toBytes();
  const r = new Reader(file);

  t.equal(new TextDecoder().decode(file.subarray(0, 4)), 'GGUF');
  r.u32();
  t.equal(r.u32(), 3, 'version');
  t.equal(r.u64(), 2, 'tensors');
  t.equal(r.u64(), 7, 'metadata pairs');
  const value = (type: number): unknown => {
    switch (type) {
      case 4:
        return r.u32();
      case 5:
        return r.i32();
      case 6:
        return r.f32();
      case 7:
        return r.u8() === 1;
      case 8:
        return r.string();
      case 9: {
        const itemType = r.u32();
        return Array.from({ length: r.u64() }, () => value(itemType));
      }
      default:
        throw new Error(`type ${type}`);
    }
  };
  const metadata: Record<string, unknown> = {};
  for (let i = 0; i < 7; i++) {
    const key = r.string();
    metadata[key] = value(r.u32());
  }
  t.same(metadata, {
    'general.architecture': 'qwen3',
    'qwen3.block_count': 1,
    'qwen3.rope.freq_base': 1e6,
    'tokenizer.ggml.add_bos_token': false,
    'tokenizer.ggml.tokens': ['a', 'é'],
    'tokenizer.ggml.token_type': [1, -3],
    scores: [0.5],
  });

  const infos = [0, 1].map(() => ({
    name: r.string(),
    shape: Array.from({ length: r.u32() }, () => r.u64()),
    type: r.i32(),
    offset: r.u64(),
  }));
  t.same(infos, [
    { name: 'norm', shape: [3], type: 0, offset: 0 },
    // Innermost dimension first; each tensor starts on a 32-byte boundary of the data.
    { name: 'embedding', shape: [3, 2], type: 1, offset: 32 },
  ]);
  const dataStart = Math.ceil(r.at / 32) * 32;
  const view = new DataView(file.buffer, file.byteOffset + dataStart);
  t.same(
    [0, 1, 2].map((i) => view.getFloat32(i * 4, true)),
    [1, 2, 3],
  );
  t.same(
    [0, 1, 2, 3, 4, 5].map((i) => float16Value(view.getUint16(32 + i * 2, true))),
    [0, 1, -2, 0.5, 65504, 0],
  );
  t.equal(file.length, dataStart + 64, 'the last tensor is padded to the alignment too');
});

t.test('half precision rounds to nearest, ties to even, with subnormals and overflow', async (t) => {
  t.equal(float16Bits(1), 0x3c00);
  t.equal(float16Bits(-2), 0xc000);
  t.equal(float16Bits(65504), 0x7bff);
  t.equal(float16Bits(65520), 0x7c00, 'rounds up to infinity');
  t.equal(float16Bits(1 + 2 ** -11), 0x3c00, 'a tie goes to the even mantissa');
  t.equal(float16Bits(1 + 3 * 2 ** -11), 0x3c02);
  t.equal(float16Bits(2 ** -24), 0x0001, 'the smallest subnormal');
  t.equal(float16Bits(2 ** -26), 0x0000);
  t.equal(float16Value(float16Bits(0.1)), 0.0999755859375);
  t.ok(Number.isNaN(float16Value(float16Bits(NaN))));
});
