import { describe, expect, it } from 'vitest';
import { nodeFromManifest } from '../../../shared/core/manifests/node-manifest';
import { podFromManifest } from '../../../shared/core/manifests/pod-manifest';
import type { ValidationError } from '../../../shared/core/model/errors';
import { isValidationError } from '../../../shared/core/model/errors';
import { nodeManifest, podManifest, resources } from '../../../sim/world/builders';

const GiB = 1024 ** 3;

function validationError(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (e) {
    if (isValidationError(e)) return e;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('nodeFromManifest', () => {
  it('reads labels, taints, allocatable and the NodePool', () => {
    const node = nodeFromManifest(
      nodeManifest({
        name: 'ip-10-0-1-2',
        labels: { 'karpenter.sh/nodepool': 'default', 'topology.kubernetes.io/zone': 'us-east-1a' },
        taints: [
          { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
          { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' },
        ],
        allocatable: { cpu: '3920m', memory: '15Gi', pods: '58', 'ephemeral-storage': '18Gi' },
        capacity: { cpu: '4', memory: '16Gi', pods: '58', 'ephemeral-storage': '20Gi' },
      }),
    );
    expect(node).toEqual({
      kind: 'node',
      name: 'ip-10-0-1-2',
      labels: { 'karpenter.sh/nodepool': 'default', 'topology.kubernetes.io/zone': 'us-east-1a' },
      taints: [
        { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' },
        { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' },
      ],
      allocatable: resources({ cpu: '3920m', memory: '15Gi', pods: 58, 'ephemeral-storage': '18Gi' }),
      capacity: resources({ cpu: '4', memory: '16Gi', pods: 58, 'ephemeral-storage': '20Gi' }),
      pods: [],
      nodePool: 'default',
      ready: false,
    });
  });

  it('reads what ties a Node to its NodeClaim and its lifecycle: providerID, Ready, creation, deletion, finalizers', () => {
    const manifest = nodeManifest({ name: 'n', ready: true, deletionTimestamp: '2026-01-01T00:05:00Z' });
    const node = nodeFromManifest({
      ...manifest,
      metadata: {
        ...manifest.metadata,
        creationTimestamp: '2026-01-01T00:00:00Z',
        finalizers: ['karpenter.sh/termination'],
        annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
      },
      spec: { ...manifest.spec, providerID: 'aws:///us-east-1a/i-0123456789abcdef0' },
    });
    expect(node).toMatchObject({
      providerID: 'aws:///us-east-1a/i-0123456789abcdef0',
      ready: true,
      creationTimestamp: '2026-01-01T00:00:00Z',
      deleting: true,
      unschedulable: true,
      finalizers: ['karpenter.sh/termination'],
      annotations: { 'karpenter.sh/do-not-disrupt': 'true' },
    });
    expect(nodeFromManifest(nodeManifest({ name: 'm' })).deleting).toBeUndefined();
  });

  it('falls back to capacity when allocatable is missing', () => {
    const manifest = nodeManifest({ name: 'n', capacity: { cpu: '2', memory: '4Gi' } });
    const node = nodeFromManifest({ ...manifest, status: { capacity: manifest.status!.capacity } });
    expect(node.allocatable).toEqual({ cpu: 2000, memory: 4 * GiB });
  });

  it('is unschedulable when cordoned or being deleted', () => {
    expect(nodeFromManifest(nodeManifest({ unschedulable: true })).unschedulable).toBe(true);
    expect(nodeFromManifest(nodeManifest({ deletionTimestamp: '2024-01-01T00:00:00Z' })).unschedulable).toBe(
      true,
    );
    expect(nodeFromManifest(nodeManifest()).unschedulable).toBeUndefined();
    expect(nodeFromManifest(nodeManifest()).nodePool).toBeUndefined();
  });

  it('attaches the pods the caller gives it', () => {
    const pod = podFromManifest(podManifest({ nodeName: 'n' }));
    expect(nodeFromManifest(nodeManifest({ name: 'n' }), {}, [pod]).pods).toEqual([pod]);
  });

  it('names a bad taint and a bad allocatable', () => {
    const error = validationError(() =>
      nodeFromManifest(
        nodeManifest({
          name: 'n',
          taints: [{ key: 'a', effect: 'Sometimes' }],
          allocatable: { cpu: 'four' },
        }),
      ),
    );
    expect(error.location.object).toBe('Node/n');
    expect(error.issues).toContainEqual(
      expect.objectContaining({ field: 'spec.taints[0].effect', value: 'Sometimes' }),
    );
    expect(error.issues).toContainEqual(
      expect.objectContaining({ field: 'status.allocatable.cpu', value: 'four' }),
    );
  });
});
