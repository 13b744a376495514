import { describe, expect, it } from 'vitest';
import { classifyInterruption } from '../../../shared/core/interruption/messages';

// aws/karpenter-provider-aws pkg/controllers/interruption/messages/statechange: parser.go
// `acceptedStates` (stopping, stopped, shutting-down, terminated) and model.go `Kind`
// (stopping/stopped → StoppingKind, the others → TerminatingKind).
const stateChange = (state: string) =>
  JSON.stringify({
    version: '0',
    id: 'evt-1',
    source: 'aws.ec2',
    'detail-type': 'EC2 Instance State-change Notification',
    detail: { 'instance-id': 'i-0123456789abcdef0', state },
  });

describe('classifyInterruption: EC2 Instance State-change Notification', () => {
  it.each([
    ['stopping', 'instance-stopped'],
    ['stopped', 'instance-stopped'],
    ['shutting-down', 'instance-terminated'],
    ['terminated', 'instance-terminated'],
  ])('classifies %s as %s, naming the instance', (state, kind) => {
    expect(classifyInterruption(stateChange(state))).toStrictEqual({
      kind,
      id: 'evt-1',
      instanceIds: ['i-0123456789abcdef0'],
    });
  });

  it.each(['pending', 'running'])('takes %s for no action', (state) => {
    expect(classifyInterruption(stateChange(state))).toMatchObject({ kind: 'no-action' });
  });

  it('calls a body that is not JSON, or not a version-0 event, unknown', () => {
    expect(classifyInterruption('not json')).toMatchObject({ kind: 'unknown' });
    expect(classifyInterruption(JSON.stringify({ version: '1' }))).toMatchObject({ kind: 'unknown' });
  });
});
