/**
 * Peak heap use of a run, read from V8's `--trace-gc` log. Heap use only grows between
 * collections, so its maximum over a run is the largest "before" size among the collections
 * inside the run and the forced collection that ends it: exact to the byte V8 reports, with no
 * sampling (a synchronous run gives a sampler no chance to run anyway).
 *
 * A line looks like (V8 11, Node 20):
 * `[1234:0x5e1c0b0]   41 ms: Mark-Compact 3.1 (4.0) -> 2.6 (5.0) MB, 5.33 / 0.00 ms  (…) testing; …`
 * with the used size before and after, and in brackets the committed heap. Collections forced
 * by `global.gc()` carry the reason `testing`.
 */

/** One collection of the log. */
export interface GcEvent {
  /** V8 isolate address: the tsx loader thread has its own isolate, filtered out by this. */
  readonly isolate: string;
  /** Heap in use just before the collection, MB (2^20 bytes). */
  readonly usedBeforeMB: number;
  /** Heap committed just before the collection, MB. */
  readonly committedBeforeMB: number;
  /** Forced by global.gc(). */
  readonly forced: boolean;
}

const LINE = /^\[\d+:(0x[0-9a-f]+)\]\s+[\d.]+ ms: .+? ([\d.]+) \(([\d.]+)\) -> [\d.]+ \([\d.]+\) MB\b(.*)$/;

/** The collections in a `--trace-gc` log; other lines are ignored. */
export function parseGcTrace(text: string): GcEvent[] {
  const events: GcEvent[] = [];
  for (const line of text.split('\n')) {
    const m = LINE.exec(line);
    if (!m) continue;
    events.push({
      isolate: m[1],
      usedBeforeMB: Number(m[2]),
      committedBeforeMB: Number(m[3]),
      forced: /\btesting\b/.test(m[4]),
    });
  }
  return events;
}

/** Peak heap of each run, MB. */
export interface RunPeaks {
  readonly usedMB: readonly number[];
  readonly committedMB: readonly number[];
}

/**
 * Cuts the main isolate's collections into runs. The process must force exactly `leading`
 * collections before the first run and then one immediately before and one immediately after
 * each of `runs` runs (as measure.ts does). Returns why not when the log does not fit that
 * pattern, rather than a wrong figure.
 */
export function runPeaks(events: readonly GcEvent[], runs: number, leading: number): RunPeaks | string {
  const mainIsolate = events.find((e) => e.forced)?.isolate;
  if (mainIsolate === undefined) return 'no forced collection in the GC trace';
  const main = events.filter((e) => e.isolate === mainIsolate);
  const forced = main.flatMap((e, i) => (e.forced ? [i] : []));
  if (forced.length !== leading + 2 * runs) {
    return `expected ${leading + 2 * runs} forced collections in the GC trace, found ${forced.length}`;
  }
  const usedMB: number[] = [];
  const committedMB: number[] = [];
  for (let r = 0; r < runs; r++) {
    const open = forced[leading + 2 * r];
    const close = forced[leading + 2 * r + 1];
    const inRun = main.slice(open + 1, close + 1);
    usedMB.push(Math.max(...inRun.map((e) => e.usedBeforeMB)));
    committedMB.push(Math.max(...inRun.map((e) => e.committedBeforeMB)));
  }
  return { usedMB, committedMB };
}
