/**
 * A small seeded pseudo-random generator (mulberry32): uniform numbers in [0, 1), the same
 * sequence for the same seed. The bootstrap uses it so that the same records always give the same
 * interval (a report rebuilt tomorrow prints what it printed today). Not for anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
