import { describe, expect, it } from 'vitest';
import { windowsUserData } from '../../../shared/aws/userdata/windows';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';
import { readNodeBootstrap, UnbootableUserDataError } from '../../../sim/world/node-bootstrap';
import { bootstrap } from '../../aws/userdata/fixtures';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const mime = (nodeConfig: string) =>
  b64(
    [
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="BOUNDARY"',
      '',
      '--BOUNDARY',
      'Content-Type: application/node.eks.aws',
      '',
      nodeConfig,
      '--BOUNDARY--',
      '',
    ].join('\n'),
  );

describe('readNodeBootstrap: user data no kubelet boots from', () => {
  it('reads the labels a NodeConfig passes to kubelet', () => {
    const boot = readNodeBootstrap(
      'i-1',
      mime(
        'apiVersion: node.eks.aws/v1alpha1\nkind: NodeConfig\nspec:\n  cluster: { name: demo }\n  kubelet:\n    flags: ["--node-labels=team=a"]',
      ),
    );
    expect(boot).toMatchObject({ clusterName: 'demo', labels: { team: 'a' } });
  });

  it('is an UnbootableUserDataError for none, a shell script, or a NodeConfig that is not YAML', () => {
    for (const [data, why] of [
      [undefined, /it has none/],
      [b64('#!/bin/bash\necho hi\n'), /neither a MIME archive nor Bottlerocket TOML/],
      [mime('spec: { cluster: { name: demo'), /a NodeConfig part is not YAML/],
    ] as const) {
      let error: unknown;
      try {
        readNodeBootstrap('i-1', data);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnbootableUserDataError);
      expect((error as Error).message).toMatch(why);
    }
  });
});

describe('readNodeBootstrap on a Windows instance', () => {
  const podliftUserData = () =>
    b64(
      windowsUserData(
        bootstrap({
          nodeClaim: nodeClaim({ taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }] }),
          nodeClass: nodeClass({ amiFamily: 'Windows2022', userData: "Write-Host 'it''s custom'" }),
        }),
      ),
    );

  it("reads the cluster, labels, taints and max pods podlift's Start-EKSBootstrap call passes", () => {
    expect(readNodeBootstrap('i-1', podliftUserData(), 'windows')).toEqual({
      clusterName: 'demo',
      labels: {
        'karpenter.k8s.aws/ec2nodeclass': 'default',
        'karpenter.sh/capacity-type': 'spot',
        'karpenter.sh/do-not-sync-taints': 'true',
        'karpenter.sh/nodepool': 'default',
      },
      taints: [
        { key: 'os', value: 'windows', effect: 'NoSchedule' },
        { key: 'karpenter.sh/unregistered', effect: 'NoExecute' },
      ],
      maxPods: 29,
    });
  });

  it('reads a hand-written call with double-quoted and bare parameters, as PowerShell does', () => {
    const script = [
      '<powershell>',
      '[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"',
      '& $EKSBootstrapScriptFile -EKSClusterName demo -KubeletExtraArgs "--node-labels=team=a --max-pods=20" 3>&1',
      '</powershell>',
    ].join('\n');
    expect(readNodeBootstrap('i-1', b64(script), 'windows')).toEqual({
      clusterName: 'demo',
      labels: { team: 'a' },
      taints: [],
      maxPods: 20,
    });
  });

  it('never boots Linux user data on Windows, nor PowerShell on Linux', () => {
    const cases = [
      [mime('spec: { cluster: { name: demo } }'), 'windows', /EC2Launch finds no <powershell> block/],
      [
        b64('<powershell>\nWrite-Host "no bootstrap"\n</powershell>'),
        'windows',
        /never calls Start-EKSBootstrap/,
      ],
      [podliftUserData(), 'linux', /neither a MIME archive nor Bottlerocket TOML/],
    ] as const;
    for (const [data, platform, why] of cases) {
      let error: unknown;
      try {
        readNodeBootstrap('i-1', data, platform);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UnbootableUserDataError);
      expect((error as Error).message).toMatch(why);
    }
  });
});
