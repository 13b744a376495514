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
  for (const object of objects) {
    await runtime.ports.events
      .record({ object, ...event, once: true })
      .catch((error: unknown) =>
        invocation.log.warn('recording an Event failed', { object: object.name, error: String(error) }),
      );
  }
}
