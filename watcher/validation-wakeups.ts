import type { Clock, TimerHandle, Timers } from '../shared/core/ports/time';
import type { NodeClaimDigest } from './karpenter-object-hints';
import type { ObjectChange } from './reflector';

/**
 * How long after a command's validation is due its wake-up goes. A `CapacityChanged` batch can
 * ride along in a `PodsPending` call at once, and the watcher's node and Lambda read different
 * clocks; a hint that arrived a few milliseconds early would find the command still waiting and
 * leave it to the next one-minute tick.
 */
export const VALIDATION_WAKEUP_SLACK_MS = 1000;

interface Wakeup {
  readonly dueAt: number;
  /** Absent once fired: the same command does not wake the function twice. */
  handle?: TimerHandle;
}

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
  private readonly wakeups = new Map<string, Wakeup>();

  constructor(
    private readonly clock: Clock,
    private readonly timers: Timers,
    /** Called with the NodeClaim's name when its command is due. */
    private readonly onDue: (name: string) => void,
  ) {}

  /** Sets, moves or clears the timer of the NodeClaim `change` concerns. */
  observe(change: ObjectChange<NodeClaimDigest>): void {
    const dueAt = change.current?.validationDueAt;
    const held = this.wakeups.get(change.key);
    if (held?.dueAt === dueAt) return;
    if (held?.handle) this.timers.clearTimeout(held.handle);
    this.wakeups.delete(change.key);
    if (dueAt === undefined || change.current === undefined) return;
    const { name } = change.current;
    const delay = Math.max(0, dueAt + VALIDATION_WAKEUP_SLACK_MS - this.clock.now());
    const wakeup: Wakeup = { dueAt };
    wakeup.handle = this.timers.setTimeout(() => {
      delete wakeup.handle;
      this.onDue(name);
    }, delay);
    this.wakeups.set(change.key, wakeup);
  }

  /** Clears every timer. */
  stop(): void {
    for (const { handle } of this.wakeups.values()) if (handle) this.timers.clearTimeout(handle);
    this.wakeups.clear();
  }
}
