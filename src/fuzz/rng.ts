// A small seeded PRNG (SplitMix32-style): every fuzz case is reproducible from its seed alone.

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = (seed ^ 0x9e3779b9) >>> 0;
    for (let i = 0; i < 4; i++) this.next();
  }

  /** Uniform 32-bit unsigned integer. */
  next(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  }

  /** Integer in [0, n). */
  below(n: number): number {
    return n <= 1 ? 0 : this.next() % n;
  }

  /** Integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.below(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() / 0x100000000 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const v = this.next();
      for (let k = 0; k < 4 && i + k < n; k++) out[i + k] = (v >>> (8 * k)) & 0xff;
    }
    return out;
  }
}
