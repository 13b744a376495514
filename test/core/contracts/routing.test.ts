import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { capacityChangedDetail } from '../../../shared/core/contracts/capacity-changed';
import { podsPendingDetail } from '../../../shared/core/contracts/pods-pending';
import { matchesEventPattern, routeEvent } from '../../../shared/core/contracts/routing';
import { WATCHER_EVENT_SOURCE } from '../../../shared/core/contracts/watcher-source';

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/aws-events/${name}.json`, import.meta.url), 'utf8'));

describe('routeEvent', () => {
  it.each([
    ['spot-interruption-warning'],
    ['spot-interruption-warning-az-arn'],
    ['capacity-reservation-interruption-warning'],
    ['rebalance-recommendation'],
    ['state-change-stopping'],
    ['state-change-terminated'],
    ['health-scheduled-change'],
  ])('sends the real %s event from the default bus to the interruption queue, once', (name) => {
    expect(routeEvent('default', fixture(name))).toEqual(['interruption']);
  });

  it('routes no autoscaling event, and nothing on the default bus to the cluster functions', () => {
    expect(routeEvent('default', fixture('unknown-detail-type'))).toEqual([]);
    expect(routeEvent('default', fixture('asg-terminate-lifecycle-action'))).toEqual([]);
    expect(routeEvent('cluster', fixture('spot-interruption-warning'))).toEqual([]);
  });

  it('sends the watcher’s hints on the cluster bus to the loops that act on them', () => {
    const pending = {
      source: WATCHER_EVENT_SOURCE,
      'detail-type': 'PodsPending',
      detail: podsPendingDetail({ cluster: 'demo', pods: [{ namespace: 'a', name: 'b', uid: 'c' }] }),
    };
    const changed = {
      source: WATCHER_EVENT_SOURCE,
      'detail-type': 'CapacityChanged',
      detail: capacityChangedDetail({ cluster: 'demo', reasons: {} }),
    };
    expect(routeEvent('cluster', pending)).toEqual(['provisioner']);
    expect(routeEvent('cluster', changed)).toEqual(['disruption', 'termination', 'provisioner']);
    expect(routeEvent('default', pending)).toEqual([]);
  });
});

describe('matchesEventPattern', () => {
  it('needs every field, matches any listed value, array elements, prefixes and nested patterns', () => {
    const pattern = { source: ['aws.ec2'], detail: { state: ['stopped', { prefix: 'shut' }] } };
    expect(matchesEventPattern(pattern, { source: 'aws.ec2', detail: { state: 'stopped' } })).toBe(true);
    expect(matchesEventPattern(pattern, { source: 'aws.ec2', detail: { state: 'shutting-down' } })).toBe(
      true,
    );
    expect(matchesEventPattern(pattern, { source: 'aws.ec2', detail: { state: 'running' } })).toBe(false);
    expect(matchesEventPattern(pattern, { source: 'aws.ec2' })).toBe(false);
    expect(
      matchesEventPattern(pattern, { source: ['x', 'aws.ec2'], detail: { state: ['a', 'stopped'] } }),
    ).toBe(true);
    expect(matchesEventPattern(pattern, null)).toBe(false);
  });
});
