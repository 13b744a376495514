import { describe, expect, it } from 'vitest';
import {
  CAPACITY_CHANGE_REASONS,
  capacityChangedDetail,
  parseCapacityChangedDetail,
} from '../../../shared/core/contracts/capacity-changed';
import {
  detailByteLength,
  MAX_EVENT_ENTRY_BYTES,
  utf8ByteLength,
} from '../../../shared/core/contracts/event-size';
import { parsePodsPendingDetail, podsPendingDetail } from '../../../shared/core/contracts/pods-pending';
import { parseWatcherEvent } from '../../../shared/core/contracts/watcher-event';
import { isValidationError } from '../../../shared/core/model/errors';

const pods = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    namespace: 'team-payments-production',
    name: `checkout-api-7d9f8c6b5-${String(i).padStart(5, '0')}`,
    uid: `0b6f1a2e-3c4d-4e5f-8a9b-${String(i).padStart(12, '0')}`,
  }));

describe('PodsPending v1', () => {
  it('keeps a 10,000-pod batch under 256 KB, listing the first pods and counting all of them', () => {
    const detail = podsPendingDetail({ cluster: 'prod', pods: pods(10_000) });
    expect(detailByteLength(detail)).toBeLessThan(MAX_EVENT_ENTRY_BYTES - 1000);
    expect(detail.total).toBe(10_000);
    expect(detail.truncated).toBe(true);
    expect(detail.pods.length).toBeGreaterThan(1000);
    expect(detail.pods.length).toBeLessThan(10_000);
    expect(detail.pods[0].name).toBe('checkout-api-7d9f8c6b5-00000');
    expect(parsePodsPendingDetail(JSON.parse(JSON.stringify(detail)))).toEqual(detail);
  });

  it('fills the byte budget exactly as far as whole pods go', () => {
    const all = podsPendingDetail({ cluster: 'c', pods: pods(10) });
    const size = detailByteLength(all);
    expect(podsPendingDetail({ cluster: 'c', pods: pods(10), maxBytes: size })).toEqual(all);
    const cut = podsPendingDetail({ cluster: 'c', pods: pods(10), maxBytes: size - 1 });
    expect(cut).toMatchObject({ total: 10, truncated: true });
    expect(cut.pods).toHaveLength(9);
    expect(detailByteLength(cut)).toBeLessThanOrEqual(size - 1);
  });

  it('says the list is truncated when the watcher itself kept fewer pods than it counted', () => {
    expect(podsPendingDetail({ cluster: 'c', pods: pods(2), total: 7 })).toMatchObject({
      total: 7,
      truncated: true,
    });
    expect(podsPendingDetail({ cluster: 'c', pods: pods(2) })).toMatchObject({ total: 2, truncated: false });
  });

  it('rejects another schema version and a total below the listed pods, naming the field', () => {
    const detail = podsPendingDetail({ cluster: 'c', pods: pods(2) });
    expect(() => parsePodsPendingDetail({ ...detail, schemaVersion: 2 })).toThrow(
      /schemaVersion: .*\(got 2\)/,
    );
    expect(() => parsePodsPendingDetail({ ...detail, total: 1 })).toThrow(
      /total: total must count at least the pods listed/,
    );
    expect(() => parsePodsPendingDetail({ ...detail, pods: [{ namespace: 'a', name: 'b' }] })).toThrow(
      /pods\[0\]\.uid: required field is missing/,
    );
  });
});

describe('CapacityChanged v1', () => {
  it('reports every reason, with up to 20 names and the true count', () => {
    const names = Array.from({ length: 30 }, (_, i) => `ip-10-0-0-${i}`);
    const detail = capacityChangedDetail({
      cluster: 'prod',
      reasons: { nodeAdded: { count: 30, names }, podRemoved: { count: 1, names: ['default/web'] } },
    });
    expect(Object.keys(detail.reasons)).toEqual([...CAPACITY_CHANGE_REASONS]);
    expect(detail.reasons.nodeAdded).toEqual({ count: 30, sample: names.slice(0, 20) });
    expect(detail.reasons.nodeRemoved).toEqual({ count: 0, sample: [] });
    expect(detail).toMatchObject({ schemaVersion: 1, total: 31, truncated: true });
  });

  it('shrinks the samples to fit the byte budget', () => {
    const long = (i: number) => `${'x'.repeat(250)}-${i}`;
    const reasons = Object.fromEntries(
      CAPACITY_CHANGE_REASONS.map((reason) => [
        reason,
        { count: 20, names: Array.from({ length: 20 }, (_, i) => long(i)) },
      ]),
    );
    const detail = capacityChangedDetail({ cluster: 'c', reasons, maxBytes: 10_000 });
    expect(detailByteLength(detail)).toBeLessThanOrEqual(10_000);
    expect(detail.reasons.nodeAdded.count).toBe(20);
    expect(detail.reasons.nodeAdded.sample.length).toBeLessThan(20);
    expect(detail.truncated).toBe(true);
  });

  it('reads a detail that lacks a reason (an older watcher) as a zero count, and drops unknown ones', () => {
    const parsed = parseCapacityChangedDetail({
      schemaVersion: 1,
      cluster: 'c',
      reasons: { nodeAdded: { count: 1, sample: ['n1'] }, nodeRebooted: { count: 4, sample: [] } },
      total: 1,
      truncated: false,
    });
    expect(parsed.reasons.nodeReady).toEqual({ count: 0, sample: [] });
    expect(parsed.reasons).not.toHaveProperty('nodeRebooted');
  });
});

describe('parseWatcherEvent', () => {
  const event = (overrides: Record<string, unknown>) => ({
    source: 'podlift.watcher',
    'detail-type': 'PodsPending',
    detail: podsPendingDetail({ cluster: 'c', pods: pods(1) }),
    ...overrides,
  });

  it('tells the hints apart by detail-type', () => {
    expect(parseWatcherEvent(event({}))).toMatchObject({ detailType: 'PodsPending', detail: { total: 1 } });
    const capacity = capacityChangedDetail({ cluster: 'c', reasons: {} });
    expect(parseWatcherEvent(event({ 'detail-type': 'CapacityChanged', detail: capacity }))).toEqual({
      detailType: 'CapacityChanged',
      detail: capacity,
    });
  });

  it('refuses events from another source or of another type', () => {
    expect(() => parseWatcherEvent(event({ source: 'aws.ec2' }))).toThrow(
      'EventBridge event: source: not an event of podlift.watcher (got "aws.ec2")',
    );
    let error: unknown;
    try {
      parseWatcherEvent(event({ 'detail-type': 'PodsGone' }));
    } catch (e) {
      error = e;
    }
    expect(isValidationError(error)).toBe(true);
  });
});

describe('utf8ByteLength', () => {
  it('counts bytes as UTF-8 encodes them', () => {
    for (const text of ['plain', 'café', '名前', '🚀 pods', '\ud800 lone surrogate'])
      expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
  });
});
