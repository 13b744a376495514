import { describe, expect, it } from 'vitest';
import { decisionFromLine } from '../../../sim/world/log-lines';

describe('decisionFromLine', () => {
  it('shows a NodeClaim marked drifted with its reason and what changed', () => {
    expect(
      decisionFromLine({
        level: 'info',
        message: 'NodeClaim drifted',
        fields: {
          nodeClaim: 'default-abcde',
          reason: 'AMIDrift',
          message: 'AMI ami-1 is no longer selected',
        },
      }),
    ).toStrictEqual({
      kind: 'drift-detected',
      message: 'NodeClaim default-abcde drifted (AMIDrift: AMI ami-1 is no longer selected)',
    });
  });

  it('shows the Drifted condition cleared, and keeps it apart from the drift replacements expectations count', () => {
    const cleared = decisionFromLine({
      level: 'info',
      message: 'NodeClaim no longer drifted',
      fields: { nodeClaim: 'default-abcde' },
    });
    expect(cleared).toStrictEqual({
      kind: 'drift-cleared',
      message: 'NodeClaim default-abcde no longer drifted',
    });
    expect(
      decisionFromLine({
        level: 'info',
        message: 'disrupting',
        fields: { method: 'drift', reason: 'Drifted', candidates: ['default-abcde'], replace: true },
      })?.kind,
    ).toBe('drifted');
  });

  it("counts the nodes a disruption takes and what it saves, for the soak's cost report", () => {
    expect(
      decisionFromLine({
        level: 'info',
        message: 'disrupting',
        fields: { method: 'consolidation', reason: 'Underutilized', candidates: ['a', 'b'], savings: 0.2 },
      }),
    ).toStrictEqual({
      kind: 'consolidated',
      message: 'disrupting via consolidation (Underutilized) a, b, saving $0.2000/h',
      savedDollarsPerHour: 0.2,
      disruptedNodes: 2,
    });
  });

  it('drops per-run bookkeeping lines', () => {
    expect(decisionFromLine({ level: 'info', message: 'cluster snapshot read', fields: {} })).toBeUndefined();
  });

  it('shows a garbage-collected instance with why, not an empty NodeClaim', () => {
    expect(
      decisionFromLine({
        level: 'info',
        message: 'terminating instance',
        fields: { instanceId: 'i-0123', reason: 'no NodeClaim owns it' },
      })?.message,
    ).toBe('terminating instance i-0123: no NodeClaim owns it');
    expect(
      decisionFromLine({
        level: 'info',
        message: 'terminating instance',
        fields: { instanceId: 'i-0123', reason: 'NodeClaim deleted', nodeClaim: 'default-abcde' },
      })?.message,
    ).toBe('terminating instance i-0123 of NodeClaim default-abcde');
  });
});
