import { createHash } from 'node:crypto';

/** A small seeded generator (mulberry32) of numbers in [0, 1), so a seed replays the same run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Version-4-shaped UUIDs derived from `seed` and a counter, for the fake API server's
 * metadata.uid: unique within a run and the same in every run of the seed (crypto.randomUUID,
 * the store's default, differs per run and so would every object's content and every digest).
 */
export function seededUuids(seed: number): () => string {
  let serial = 0;
  return () => {
    const hex = createHash('sha1').update(`${seed}/${serial++}`).digest('hex');
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  };
}
