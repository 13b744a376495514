import { describe, expect, it } from 'vitest';
import { VirtualTime } from '../../sim/virtual-time';
import { WAKEUP_SLACK_MS } from '../../watcher/due-timers';
import type { NodeClaimDigest } from '../../watcher/karpenter-object-hints';
import type { ObjectChange } from '../../watcher/reflector';
import { ValidationWakeups } from '../../watcher/validation-wakeups';

function digest(validationDueAt?: number): NodeClaimDigest {
  return {
    name: 'c1',
    generation: 1,
    deleting: false,
    conditions: '',
    ...(validationDueAt !== undefined ? { validationDueAt } : {}),
  };
}

function change(
  type: ObjectChange<NodeClaimDigest>['type'],
  current: NodeClaimDigest | undefined,
  initial = false,
): ObjectChange<NodeClaimDigest> {
  return { type, key: 'c1', ...(current ? { current } : {}), initial };
}

function wakeups() {
  const time = new VirtualTime();
  const due: { name: string; at: number }[] = [];
  const w = new ValidationWakeups(time, time, (name) => due.push({ name, at: time.now() }));
  return { time, due, w };
}

describe('ValidationWakeups', () => {
  it('wakes once, a moment after the command is due, however often the NodeClaim changes', () => {
    const { time, due, w } = wakeups();
    const dueAt = time.now() + 15_000;
    w.observe(change('modified', digest(dueAt)));
    time.advance(15_000 + WAKEUP_SLACK_MS - 1);
    expect(due).toEqual([]);
    w.observe(change('modified', { ...digest(dueAt), conditions: 'Drifted=True' }));
    time.advance(1);
    expect(due).toEqual([{ name: 'c1', at: dueAt + WAKEUP_SLACK_MS }]);
    w.observe(change('modified', { ...digest(dueAt), generation: 2 }));
    time.advance(60_000);
    expect(due).toHaveLength(1);
    expect(time.pending).toBe(0);
  });

  it('moves the timer to a new command and clears it when the command or the NodeClaim goes', () => {
    const { time, due, w } = wakeups();
    const start = time.now();
    w.observe(change('modified', digest(start + 15_000)));
    w.observe(change('modified', digest(start + 20_000)));
    expect(time.pending).toBe(1);
    time.advance(20_000 + WAKEUP_SLACK_MS);
    expect(due.map((d) => d.at)).toEqual([start + 20_000 + WAKEUP_SLACK_MS]);

    w.observe(change('modified', digest(time.now() + 15_000)));
    w.observe(change('modified', digest()));
    expect(time.pending).toBe(0);
    w.observe(change('modified', digest(time.now() + 15_000)));
    w.observe(change('deleted', undefined));
    expect(time.pending).toBe(0);
    time.advance(60_000);
    expect(due).toHaveLength(1);
  });

  it('wakes at once for a command already due when first listed, and clears every timer on stop', () => {
    const { time, due, w } = wakeups();
    w.observe(change('added', digest(time.now() - 30_000), true));
    time.advance(0);
    expect(due).toEqual([{ name: 'c1', at: time.now() }]);
    w.observe({
      type: 'added',
      key: 'c2',
      current: { ...digest(time.now() + 15_000), name: 'c2' },
      initial: false,
    });
    expect(time.pending).toBe(1);
    w.stop();
    expect(time.pending).toBe(0);
    time.advance(60_000);
    expect(due).toHaveLength(1);
  });
});
