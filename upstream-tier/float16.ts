// IEEE 754 half precision (GGML_TYPE_F16), which Node 20 has no typed array for: the bits of a
// number rounded to the nearest half (ties to even), and the number those bits stand for.

const scratch = new DataView(new ArrayBuffer(4));

/** The 16 bits of `value` rounded to the nearest half-precision number. */
export function float16Bits(value: number): number {
  scratch.setFloat32(0, value);
  const bits = scratch.getUint32(0);
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  const mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa === 0 ? 0 : 0x200);
  const halfExponent = exponent - 127 + 15;
  if (halfExponent >= 0x1f) return sign | 0x7c00;
  if (halfExponent <= 0) {
    // A subnormal half (or zero): the implicit leading 1 becomes explicit and is shifted out.
    if (halfExponent < -10) return sign;
    const full = mantissa | 0x800000;
    const shift = 14 - halfExponent;
    return sign | roundShift(full, shift);
  }
  // The rounding may carry into the exponent, which is the right result (up to infinity).
  return sign | ((halfExponent << 10) + roundShift(mantissa, 13));
}

/** The number that half-precision `bits` stand for. */
export function float16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >>> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa === 0 ? sign * Infinity : NaN;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

/** The values as a half-precision tensor holds them. */
export function roundedToFloat16(values: Float32Array): Float32Array {
  const rounded = values.slice();
  for (let i = 0; i < rounded.length; i++) {
    // Zero, which most of a sparse matrix is, stays zero: skipping it saves most of the time.
    if (rounded[i] !== 0) rounded[i] = float16Value(float16Bits(rounded[i] as number));
  }
  return rounded;
}

function roundShift(value: number, shift: number): number {
  const kept = value >>> shift;
  const rest = value & ((1 << shift) - 1);
  const half = 1 << (shift - 1);
  return rest > half || (rest === half && (kept & 1) === 1) ? kept + 1 : kept;
}
