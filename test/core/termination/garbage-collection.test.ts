import { describe, expect, it } from 'vitest';
import type { CloudInstance } from '../../../shared/core/ports/cloud';
import {
  launchTemplatesInUse,
  PROFILE_PROTECTION_MS,
  unusedInstanceProfiles,
} from '../../../shared/core/termination/garbage-collection';
import { nodeClaim } from '../../../sim/world/builders';

const NOW = Date.UTC(2026, 0, 1, 12);
const MINUTE = 60_000;

const instance = (id: string, template: string | undefined, launchedAgo: number): CloudInstance => ({
  id,
  instanceType: 'm5.large',
  zone: 'us-east-1a',
  state: 'running',
  capacityType: 'on-demand',
  launchTime: NOW - launchedAgo,
  tags: template ? { 'aws:ec2launchtemplate:id': template } : {},
  providerID: `aws:///us-east-1a/${id}`,
});

describe('launchTemplatesInUse', () => {
  it('keeps the templates something launched from within the last 10 minutes', () => {
    expect(
      launchTemplatesInUse(
        [
          instance('i-1', 'lt-recent', 9 * MINUTE),
          instance('i-2', 'lt-stale', 10 * MINUTE),
          instance('i-3', undefined, 0),
        ],
        NOW,
      ),
    ).toStrictEqual(['lt-recent']);
  });
});

describe('unusedInstanceProfiles', () => {
  const old = NOW - PROFILE_PROTECTION_MS;
  it('deletes a profile no EC2NodeClass launches with and no NodeClaim names, once an hour old', () => {
    const held = nodeClaim({
      name: 'a',
      annotations: { 'karpenter.k8s.aws/instance-profile-name': 'held' },
    });
    expect(
      unusedInstanceProfiles({
        now: NOW,
        profiles: [
          { name: 'current', createdAt: old },
          { name: 'held', createdAt: old },
          { name: 'young', createdAt: old + 1 },
          { name: 'undated' },
          { name: 'unused', createdAt: old },
        ],
        nodeClaims: [held],
        current: new Set(['current']),
      }),
    ).toStrictEqual(['unused']);
  });
});
