/**
 * A small seeded pseudo-random generator (mulberry32). Every random choice the simulator makes
 * (fault injection, latency, tokens) draws from one of these, so a run is reproducible from its
 * seed; `Math.random` is never used.
 */
export interface Prng {
  /** A uniform number in [0, 1). */
  next(): number;
  /** A uniform integer in [0, n). */
  int(n: number): number;
  /** A normal deviate (Box–Muller). */
  normal(mean: number, stddev: number): number;
  /** `length` lowercase hex characters. */
  hex(length: number): string;
}

/** Builds a {@link Prng} from a 32-bit seed. */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    normal: (mean, stddev) => {
      // 1 - next() is in (0, 1], so the logarithm is finite.
      const u = 1 - next();
      const v = next();
      return mean + stddev * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    hex: (length) => {
      let out = '';
      while (out.length < length) {
        out += Math.floor(next() * 0x10000)
          .toString(16)
          .padStart(4, '0');
      }
      return out.slice(0, length);
    },
  };
}

/** FNV-1a over a string: a stable 32-bit seed for per-item derivations (a property, a room). */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
