// A small seeded pseudo-random generator (sfc32, seeded through splitmix32): the same seed gives the same
// requests on every machine, so a failing case can be replayed from its seed and index.

export class Prng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  /** `stream` separates independent sequences of one seed (the fuzzer uses one per case). */
  constructor(seed: number, stream = 0) {
    let state = (Math.trunc(seed) ^ Math.imul(stream + 1, 0x9e3779b9)) >>> 0;
    const splitmix = (): number => {
      state = (state + 0x9e3779b9) >>> 0;
      let z = state;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = splitmix();
    this.#b = splitmix();
    this.#c = splitmix();
    this.#d = splitmix();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  uint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    return this.uint32() / 4294967296;
  }

  /** An integer from min to max, both included. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** An integer from min to max whose logarithm is uniform: small and large sizes alike. */
  logInt(min: number, max: number): number {
    return Math.min(max, Math.floor(Math.exp(Math.log(min) + this.next() * (Math.log(max + 1) - Math.log(min)))));
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from an empty list');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** One of the items, each as likely as its weight. */
  weighted<T>(items: readonly { weight: number; value: T }[]): T {
    const total = items.reduce((sum, item) => sum + item.weight, 0);
    let point = this.next() * total;
    for (const item of items) {
      point -= item.weight;
      if (point < 0) return item.value;
    }
    return items[items.length - 1]!.value;
  }
}
