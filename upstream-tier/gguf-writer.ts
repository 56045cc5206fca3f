// A GGUF v3 writer (llama.cpp's model file format, ggml/include/gguf.h): the header, typed metadata
// (scalars and arrays), tensor infos and the tensor data, each tensor aligned to 32 bytes. Only
// what a small F32/F16 model needs; everything little-endian, as gguf-py writes it.
import { float16Bits } from './float16.js';

/** GGUF's value types (enum gguf_type). */
const ValueType = {
  uint32: 4,
  int32: 5,
  float32: 6,
  bool: 7,
  string: 8,
  array: 9,
} as const;

/** The ggml tensor types written here (enum ggml_type). */
export type TensorType = 'F32' | 'F16';
const GGML_TYPE: Record<TensorType, number> = { F32: 0, F16: 1 };
const BYTES_PER_ELEMENT: Record<TensorType, number> = { F32: 4, F16: 2 };

const ALIGNMENT = 32;
const utf8 = new TextEncoder();

interface Tensor {
  name: string;
  /** Row-major shape, outermost first (numpy's order); GGUF stores it innermost first. */
  shape: readonly number[];
  type: TensorType;
  values: Float32Array;
}

/** Collects metadata and tensors, in the order added, and serialises them as one GGUF file. */
export class GgufWriter {
  readonly #metadata = new ByteSink();
  #metadataCount = 0;
  readonly #tensors: Tensor[] = [];

  addString(key: string, value: string): void {
    this.#key(key, ValueType.string);
    this.#metadata.string(value);
  }

  addUint32(key: string, value: number): void {
    this.#key(key, ValueType.uint32);
    this.#metadata.uint32(value);
  }

  addFloat32(key: string, value: number): void {
    this.#key(key, ValueType.float32);
    this.#metadata.float32(value);
  }

  addBool(key: string, value: boolean): void {
    this.#key(key, ValueType.bool);
    this.#metadata.uint8(value ? 1 : 0);
  }

  addStringArray(key: string, values: readonly string[]): void {
    this.#arrayHeader(key, ValueType.string, values.length);
    for (const value of values) this.#metadata.string(value);
  }

  addInt32Array(key: string, values: readonly number[]): void {
    this.#arrayHeader(key, ValueType.int32, values.length);
    for (const value of values) this.#metadata.int32(value);
  }

  addFloat32Array(key: string, values: readonly number[]): void {
    this.#arrayHeader(key, ValueType.float32, values.length);
    for (const value of values) this.#metadata.float32(value);
  }

  /** A tensor of `shape` (row-major, outermost first) holding `values`, stored as `type`. */
  addTensor(name: string, shape: readonly number[], type: TensorType, values: Float32Array): void {
    const count = shape.reduce((a, b) => a * b, 1);
    if (count !== values.length)
      throw new Error(`tensor ${name}: shape ${shape.join('×')} but ${values.length} values`);
    this.#tensors.push({ name, shape, type, values });
  }

  /** The whole file. */
  toBytes(): Uint8Array {
    const head = new ByteSink();
    head.bytes(utf8.encode('GGUF'));
    head.uint32(3);
    head.uint64(this.#tensors.length);
    head.uint64(this.#metadataCount);
    head.bytes(this.#metadata.toBytes());
    let offset = 0;
    for (const tensor of this.#tensors) {
      head.string(tensor.name);
      head.uint32(tensor.shape.length);
      for (const size of [...tensor.shape].reverse()) head.uint64(size);
      head.int32(GGML_TYPE[tensor.type]);
      head.uint64(offset);
      offset += padded(tensor.values.length * BYTES_PER_ELEMENT[tensor.type]);
    }
    const header = head.toBytes();
    const dataStart = padded(header.length);
    const file = new Uint8Array(dataStart + offset);
    file.set(header);
    let at = dataStart;
    for (const tensor of this.#tensors) {
      file.set(tensorBytes(tensor), at);
      at += padded(tensor.values.length * BYTES_PER_ELEMENT[tensor.type]);
    }
    return file;
  }

  #key(key: string, type: number): void {
    this.#metadataCount++;
    this.#metadata.string(key);
    this.#metadata.int32(type);
  }

  #arrayHeader(key: string, itemType: number, length: number): void {
    this.#key(key, ValueType.array);
    this.#metadata.int32(itemType);
    this.#metadata.uint64(length);
  }
}

function padded(size: number): number {
  return Math.ceil(size / ALIGNMENT) * ALIGNMENT;
}

function tensorBytes(tensor: Tensor): Uint8Array {
  const view = new DataView(new ArrayBuffer(tensor.values.length * BYTES_PER_ELEMENT[tensor.type]));
  const { values } = tensor;
  for (let i = 0; i < values.length; i++) {
    const value = values[i] as number;
    // The buffer starts zeroed, and +0 is all zero bits in both types.
    if (Object.is(value, 0)) continue;
    if (tensor.type === 'F32') view.setFloat32(i * 4, value, true);
    else view.setUint16(i * 2, float16Bits(value), true);
  }
  return new Uint8Array(view.buffer);
}

/** A growing little-endian byte buffer. */
class ByteSink {
  #buffer = new Uint8Array(1 << 16);
  #view = new DataView(this.#buffer.buffer);
  #length = 0;

  uint8(value: number): void {
    const at = this.#reserve(1);
    this.#view.setUint8(at, value);
  }

  int32(value: number): void {
    const at = this.#reserve(4);
    this.#view.setInt32(at, value, true);
  }

  uint32(value: number): void {
    const at = this.#reserve(4);
    this.#view.setUint32(at, value, true);
  }

  uint64(value: number): void {
    const at = this.#reserve(8);
    this.#view.setBigUint64(at, BigInt(value), true);
  }

  float32(value: number): void {
    const at = this.#reserve(4);
    this.#view.setFloat32(at, value, true);
  }

  /** A GGUF string: its UTF-8 length as uint64, then the bytes (no terminator). */
  string(value: string): void {
    const encoded = utf8.encode(value);
    this.uint64(encoded.length);
    this.bytes(encoded);
  }

  bytes(value: Uint8Array): void {
    const at = this.#reserve(value.length);
    this.#buffer.set(value, at);
  }

  toBytes(): Uint8Array {
    return this.#buffer.slice(0, this.#length);
  }

  /** Makes room for `size` more bytes and returns where they go. */
  #reserve(size: number): number {
    const at = this.#length;
    if (at + size > this.#buffer.length) {
      const grown = new Uint8Array(Math.max(this.#buffer.length * 2, at + size));
      grown.set(this.#buffer.subarray(0, at));
      this.#buffer = grown;
      this.#view = new DataView(grown.buffer);
    }
    this.#length = at + size;
    return at;
  }
}
