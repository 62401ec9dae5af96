/**
 * A small seeded generator (xorshift32) for randomized tests and benches: the same seed gives the
 * same sequence, so a failure or a run's order can be named by its seed and reproduced.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

/** One of `items`, chosen with `next` (a generator from `seededRandom`). */
export function pick<T>(next: () => number, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick: no items');
  return items[Math.floor(next() * items.length)]!;
}

/** The seed a randomized test runs with: `TOOLWIRE_SEED` when set (to replay a failure), else `fallback`. */
export function testSeed(fallback: number): number {
  const raw = process.env.TOOLWIRE_SEED;
  return raw === undefined || raw === '' ? fallback : Number(raw);
}
