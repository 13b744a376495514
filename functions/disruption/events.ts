import type { EventInput, InvolvedObject } from '../../shared/core/ports/cluster-events';
import type { Invocation } from '../invocation';
import type { LoopRuntime } from '../runtime';

/** A NodeClaim as an Event's object. */
export const nodeClaimObject = (name: string): InvolvedObject => ({
  apiVersion: 'karpenter.sh/v1',
  kind: 'NodeClaim',
  name,
});

/** A Node as an Event's object. */
export const nodeObject = (name: string): InvolvedObject => ({ apiVersion: 'v1', kind: 'Node', name });

/**
 * Records a disruption Event once per change (`once`: a decision re-made every run while nothing
 * changed leaves the one Event, as Karpenter's recorder de-duplicates them). An Event explains,
 * it is not part of the decision: a failure is logged and the run goes on.
 */
export async function explain(
  runtime: LoopRuntime,
  invocation: Invocation,
  objects: readonly InvolvedObject[],
  event: Omit<EventInput, 'object' | 'once'>,
): Promise<void> {
  await explainAll(
    runtime,
    invocation,
    objects.map((object) => ({ object, ...event })),
  );
}

/**
 * {@link explain} for many Events at once: the Events already there are read once per reason,
 * not once per object, so a run that explains itself on every node of a large cluster stays a
 * handful of reads.
 */
export async function explainAll(
  runtime: LoopRuntime,
  invocation: Invocation,
  events: readonly Omit<EventInput, 'once'>[],
): Promise<void> {
  if (events.length === 0) return;
  const outcomes = await runtime.ports.events.recordEach(events.map((e) => ({ ...e, once: true })));
  outcomes.forEach((outcome, i) => {
    if (outcome instanceof Error)
      invocation.log.warn('recording an Event failed', {
        object: events[i].object.name,
        error: String(outcome),
      });
  });
}
