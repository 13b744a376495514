import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type MimePart, mimeHeader, parseMimeArchive } from '../../../shared/aws/userdata/mime-archive';
import { GENERATED_NODE_CONFIG_HEADER, nodeadmUserData } from '../../../shared/aws/userdata/nodeadm';
import { isValidationError, type ValidationError } from '../../../shared/core/model/errors';
import { clusterInfo as cluster } from '../../../sim/world/aws/region';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';
import { bootstrap } from './fixtures';

function parts(text: string): readonly MimePart[] {
  const result = parseMimeArchive(text);
  if (!result.ok) throw new Error(result.reason);
  return result.parts;
}

/** The NodeConfig podlift generated: the archive's last part. */
function generated(text: string) {
  const all = parts(text);
  const last = all[all.length - 1];
  expect(mimeHeader(last, 'Content-Type')).toBe('application/node.eks.aws');
  expect(last.content.startsWith(`${GENERATED_NODE_CONFIG_HEADER}\n`)).toBe(true);
  return parseYaml(last.content);
}

function userDataError(userData: string): ValidationError {
  try {
    nodeadmUserData(bootstrap({ nodeClass: nodeClass({ name: 'gpu', userData }) }));
  } catch (e) {
    if (isValidationError(e)) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('nodeadmUserData', () => {
  it('is a multipart/mixed archive whose only part is a NodeConfig with the cluster and kubelet settings', () => {
    const text = nodeadmUserData(
      bootstrap({
        nodeClass: nodeClass({
          kubelet: {
            systemReserved: { cpu: '100m', memory: '100Mi' },
            kubeReserved: { cpu: '200m' },
            evictionHard: { 'memory.available': '5%' },
            evictionSoft: { 'nodefs.available': '15%' },
            evictionSoftGracePeriod: { 'nodefs.available': '1m' },
            imageGCHighThresholdPercent: 85,
            cpuCFSQuota: false,
          },
        }),
      }),
    );
    expect(text.startsWith('MIME-Version: 1.0\nContent-Type: multipart/mixed; boundary="//"\n\n--//\n')).toBe(
      true,
    );
    expect(parts(text)).toHaveLength(1);
    const config = generated(text);
    expect(config.apiVersion).toBe('node.eks.aws/v1alpha1');
    expect(config.kind).toBe('NodeConfig');
    expect(config.spec.cluster).toEqual({
      apiServerEndpoint: cluster.endpoint,
      certificateAuthority: cluster.certificateAuthority,
      cidr: '10.100.0.0/16',
      name: 'demo',
    });
    expect(config.spec.kubelet.config).toEqual({
      clusterDNS: ['10.100.0.10'],
      maxPods: 29,
      systemReserved: { cpu: '100m', memory: '100Mi' },
      kubeReserved: { cpu: '200m' },
      evictionHard: { 'memory.available': '5%' },
      evictionSoft: { 'nodefs.available': '15%' },
      evictionSoftGracePeriod: { 'nodefs.available': '1m' },
      imageGCHighThresholdPercent: 85,
      cpuCFSQuota: false,
      registerWithTaints: [{ key: 'karpenter.sh/unregistered', effect: 'NoExecute' }],
    });
    expect(config.spec.instance).toBeUndefined();
  });

  it('renders any other kubelet setting of the EC2NodeClass into the kubelet config, as Karpenter main does', () => {
    const config = generated(
      nodeadmUserData(
        bootstrap({
          nodeClass: nodeClass({
            kubelet: {
              maxPods: 40,
              passthrough: { shutdownGracePeriod: '30s', featureGates: { InPlacePodVerticalScaling: true } },
            },
          }),
        }),
      ),
    );
    expect(config.spec.kubelet.config).toMatchObject({
      shutdownGracePeriod: '30s',
      featureGates: { InPlacePodVerticalScaling: true },
      maxPods: 40,
    });
    expect(config.spec.kubelet.config.passthrough).toBeUndefined();
  });

  it('passes the exact node labels as a kubelet flag and every taint in registerWithTaints', () => {
    const text = nodeadmUserData(
      bootstrap({
        nodeClaim: nodeClaim({
          labels: { team: 'ml', 'node.kubernetes.io/instance-type': 'g5.xlarge' },
          taints: [{ key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' }],
          startupTaints: [{ key: 'ebs.csi.aws.com/agent-not-ready', effect: 'NoExecute' }],
        }),
        capacityType: 'on-demand',
      }),
    );
    const config = generated(text);
    expect(config.spec.kubelet.flags).toEqual([
      '--node-labels="karpenter.k8s.aws/ec2nodeclass=default,karpenter.sh/capacity-type=on-demand,karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=default,team=ml"',
    ]);
    expect(config.spec.kubelet.config.registerWithTaints).toEqual([
      { key: 'nvidia.com/gpu', value: 'true', effect: 'NoSchedule' },
      { key: 'ebs.csi.aws.com/agent-not-ready', effect: 'NoExecute' },
      { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
    ]);
  });

  it('puts a bare NodeConfig from the EC2NodeClass first, as its own application/node.eks.aws part', () => {
    const mine =
      'apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  kubelet:\n    config:\n      shutdownGracePeriod: 30s\n';
    const all = parts(nodeadmUserData(bootstrap({ nodeClass: nodeClass({ userData: mine }) })));
    expect(all).toHaveLength(2);
    expect(all[0]).toEqual({ headers: [['Content-Type', 'application/node.eks.aws']], content: mine });
    expect(all[1].content).toContain(GENERATED_NODE_CONFIG_HEADER);
  });

  it('puts a shell script from the EC2NodeClass first, as a text/x-shellscript part', () => {
    const script = '#!/bin/bash\necho "Hello, AL2023!"';
    const all = parts(nodeadmUserData(bootstrap({ nodeClass: nodeClass({ userData: script }) })));
    expect(all[0]).toEqual({
      headers: [['Content-Type', 'text/x-shellscript; charset="us-ascii"']],
      content: script,
    });
    expect(all).toHaveLength(2);
  });

  it('keeps a cloud-config document as text/cloud-config rather than a NodeConfig', () => {
    const cloudConfig = '#cloud-config\npackages:\n  - htop\n';
    const all = parts(nodeadmUserData(bootstrap({ nodeClass: nodeClass({ userData: cloudConfig }) })));
    expect(mimeHeader(all[0], 'content-type')).toBe('text/cloud-config; charset="us-ascii"');
  });

  it("keeps every part of the EC2NodeClass's MIME archive, headers included, and appends the NodeConfig", () => {
    const archive = [
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="BOUNDARY"',
      '',
      '--BOUNDARY',
      'Content-Type: text/x-shellscript; charset="us-ascii"',
      'Content-Transfer-Encoding: 7bit',
      '',
      'echo first',
      '--BOUNDARY',
      'Content-Type: application/node.eks.aws',
      '',
      'apiVersion: node.eks.aws/v1alpha1',
      'kind: NodeConfig',
      '--BOUNDARY--',
      '',
    ].join('\n');
    const all = parts(nodeadmUserData(bootstrap({ nodeClass: nodeClass({ userData: archive }) })));
    expect(all.map((p) => p.headers)).toEqual([
      [
        ['Content-Type', 'text/x-shellscript; charset="us-ascii"'],
        ['Content-Transfer-Encoding', '7bit'],
      ],
      [['Content-Type', 'application/node.eks.aws']],
      [['Content-Type', 'application/node.eks.aws']],
    ]);
    expect(all[0].content).toBe('echo first');
    expect(all[2].content).toContain(GENERATED_NODE_CONFIG_HEADER);
  });

  it('asks nodeadm for a RAID0 instance store when the EC2NodeClass does', () => {
    const config = generated(
      nodeadmUserData(bootstrap({ nodeClass: nodeClass({ instanceStorePolicy: 'RAID0' }) })),
    );
    expect(config.spec.instance).toEqual({ localStorage: { strategy: 'RAID0' } });
  });

  it('rejects invalid MIME with a ValidationError naming the EC2NodeClass and spec.userData', () => {
    const error = userDataError('MIME-Version: 1.0\nContent-Type: multipart/mixed\n\n--//\n\necho\n--//--\n');
    expect(error.issues[0].field).toBe('spec.userData');
    expect(error.location.object).toBe('EC2NodeClass/gpu');
    expect(error.message).toMatch(
      /^EC2NodeClass\/gpu: spec\.userData: not a valid MIME multipart archive: .*no boundary/,
    );
    expect(userDataError('Content-Type: text/plain\n\nhello').message).toContain('not multipart/*');
  });
});
