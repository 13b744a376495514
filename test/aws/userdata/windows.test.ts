import { describe, expect, it } from 'vitest';
import { windowsUserData } from '../../../shared/aws/userdata/windows';
import { clusterInfo } from '../../../sim/world/aws/region';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';
import { bootstrap } from './fixtures';

/**
 * Karpenter's launch template tests "Windows Custom UserData" (aws/karpenter-provider-aws
 * pkg/providers/launchtemplate/suite_test.go, goldens testdata/windows_userdata_merged.golden and
 * windows_userdata_unmerged.golden): a Windows2022 node class with maxPods 110, a spot launch,
 * cluster `test-cluster` at https://test-cluster, CA `Y2EtYnVuZGxlCg==`, cluster DNS 10.0.100.10,
 * and the test environment's `testing/cluster=unspecified` NodePool label.
 */
const karpenterTestCluster = {
  ...clusterInfo,
  name: 'test-cluster',
  endpoint: 'https://test-cluster',
  certificateAuthority: 'Y2EtYnVuZGxlCg==',
  clusterDns: '10.0.100.10',
};

function karpenterGolden(userData?: string) {
  return windowsUserData(
    bootstrap({
      cluster: karpenterTestCluster,
      nodeClass: nodeClass({
        name: 'windows',
        amiFamily: 'Windows2022',
        kubelet: { maxPods: 110 },
        ...(userData !== undefined ? { userData } : {}),
      }),
      nodeClaim: nodeClaim({ nodePool: 'win', labels: { 'testing/cluster': 'unspecified' } }),
      nodePoolName: 'win',
      capacityType: 'spot',
    }),
  );
}

const BOOTSTRAP_LINES = [
  '[string]$EKSBootstrapScriptFile = "$env:ProgramFiles\\Amazon\\EKS\\Start-EKSBootstrap.ps1"',
  `& $EKSBootstrapScriptFile -EKSClusterName 'test-cluster' -APIServerEndpoint 'https://test-cluster' -Base64ClusterCA 'Y2EtYnVuZGxlCg==' -KubeletExtraArgs '--node-labels="karpenter.k8s.aws/ec2nodeclass=windows,karpenter.sh/capacity-type=spot,karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=win,testing/cluster=unspecified" --register-with-taints="karpenter.sh/unregistered:NoExecute" --max-pods=110' -DNSClusterIP '10.0.100.10'`,
];

describe('windowsUserData', () => {
  it("bootstraps with Start-EKSBootstrap.ps1 exactly as Karpenter's unmerged golden", () => {
    expect(karpenterGolden()).toBe(['<powershell>', ...BOOTSTRAP_LINES, '</powershell>'].join('\n'));
  });

  it("runs the EC2NodeClass's PowerShell first, inside the same block, as Karpenter's merged golden", () => {
    const custom =
      'Write-Host "Running custom user data script"\nWrite-Host "Finished running custom user data script"';
    expect(karpenterGolden(custom)).toBe(
      [
        '<powershell>',
        'Write-Host "Running custom user data script"',
        'Write-Host "Finished running custom user data script"',
        ...BOOTSTRAP_LINES,
        '</powershell>',
      ].join('\n'),
    );
  });

  it('passes taints, reserved resources and eviction thresholds as kubelet flags (bootstrap.go kubeletExtraArgs)', () => {
    const text = windowsUserData(
      bootstrap({
        nodeClaim: nodeClaim({
          taints: [{ key: 'os', value: 'windows', effect: 'NoSchedule' }],
          startupTaints: [{ key: 'agent', effect: 'NoExecute' }],
        }),
        nodeClass: nodeClass({
          amiFamily: 'Windows2019',
          kubelet: {
            podsPerCore: 4,
            kubeReserved: { memory: '500Mi', 'ephemeral-storage': '1Gi' },
            systemReserved: { memory: '1536Mi' },
            evictionHard: { 'memory.available': '200Mi', 'nodefs.available': '10%' },
            evictionSoft: { 'memory.available': '500Mi' },
            evictionSoftGracePeriod: { 'memory.available': '90s' },
            cpuCFSQuota: false,
          },
        }),
      }),
    );
    const args = /-KubeletExtraArgs '([^']*)'/.exec(text)?.[1];
    expect(args?.split(' ')).toEqual([
      '--node-labels="karpenter.k8s.aws/ec2nodeclass=default,karpenter.sh/capacity-type=spot,karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=default"',
      '--register-with-taints="os=windows:NoSchedule,agent:NoExecute,karpenter.sh/unregistered:NoExecute"',
      '--max-pods=29',
      '--pods-per-core=4',
      '--system-reserved="memory=1536Mi"',
      '--kube-reserved="ephemeral-storage=1Gi,memory=500Mi"',
      '--eviction-hard="memory.available<200Mi,nodefs.available<10%"',
      '--eviction-soft="memory.available<500Mi"',
      // metav1.Duration.String(), as bootstrap.go writes it.
      '--eviction-soft-grace-period="memory.available=1m30s"',
      '--cpu-cfs-quota=false',
    ]);
    expect(text).toContain("-DNSClusterIP '10.100.0.10'\n</powershell>");
  });

  it('leaves out the CA when the cluster has none, so the script asks EKS for it', () => {
    const text = windowsUserData(
      bootstrap({
        cluster: { ...clusterInfo, certificateAuthority: '' },
        nodeClass: nodeClass({ amiFamily: 'Windows2022' }),
      }),
    );
    expect(text).not.toContain('-Base64ClusterCA');
    expect(text).toContain(`-APIServerEndpoint '${clusterInfo.endpoint}' -KubeletExtraArgs`);
  });
});
