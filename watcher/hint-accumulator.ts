/**
 * Collects the hints of one detail type between publishes, in bounded memory: however many
 * changes arrive while the bus is unreachable, an accumulator keeps a fixed number of them and
 * counts the rest.
 */
export interface HintAccumulator<Hint, Batch> {
  add(hint: Hint): void;
  readonly isEmpty: boolean;
  /** Takes everything collected so far and starts empty. */
  drain(): Batch;
  /** Puts back a batch that failed to publish, ahead of anything collected since. */
  restore(batch: Batch): void;
  /** How many hints a batch stands for (the batch-size metric). */
  sizeOf(batch: Batch): number;
}
