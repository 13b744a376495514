import { createHash } from 'node:crypto';
import { mulberry32 } from '../../bench/workload';

/** A seeded generator of numbers in [0, 1) — the benchmarks' mulberry32 — so a seed replays the same run. */
export const seeded: (seed: number) => () => number = mulberry32;

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
