import type { Clock, Timers } from '../shared/core/ports/time';
import { DueTimers } from './due-timers';
import type { NodeClaimDigest } from './karpenter-object-hints';
import type { ObjectChange } from './reflector';

/**
 * One timer per NodeClaim carrying a recorded disruption command, set to when the command is
 * due for validation: Karpenter's disruption controller validates a command 15 s after it
 * decided it (kubernetes-sigs/karpenter pkg/controllers/disruption/validation.go,
 * `Validator.Validate` waits out `waitDuration` since the command was computed), and podlift's
 * disruption function runs only when woken, so the watcher wakes it then rather than leaving the
 * command to the next one-minute tick. A timer is replaced when the command changes and cleared
 * when the annotation or the NodeClaim goes; a command already due when first seen (a restarted
 * watcher) wakes the function at once.
 */
export class ValidationWakeups {
  private readonly timers: DueTimers;

  constructor(
    clock: Clock,
    timers: Timers,
    /** Called with the NodeClaim's name when its command is due. */ onDue: (name: string) => void,
  ) {
    this.timers = new DueTimers(clock, timers, onDue);
  }

  /** Sets, moves or clears the timer of the NodeClaim `change` concerns. */
  observe(change: ObjectChange<NodeClaimDigest>): void {
    this.timers.set(change.key, change.current?.validationDueAt);
  }

  /** Clears every timer. */
  stop(): void {
    this.timers.stop();
  }
}
