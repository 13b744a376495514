import { describe, expect, it } from 'vitest';
import { eksBootstrapUserData } from '../../../shared/aws/userdata/eks-bootstrap';
import { mimeHeader, parseMimeArchive } from '../../../shared/aws/userdata/mime-archive';
import { clusterInfo as cluster } from '../../../sim/world/aws/region';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';
import { bootstrap } from './fixtures';

function parts(text: string) {
  const result = parseMimeArchive(text);
  if (!result.ok) throw new Error(result.reason);
  return result.parts;
}

describe('eksBootstrapUserData', () => {
  it("calls bootstrap.sh with the cluster, DNS, max pods, labels and taints as Karpenter's AL2 user data does", () => {
    const text = eksBootstrapUserData(
      bootstrap({
        nodeClaim: nodeClaim({ taints: [{ key: 'dedicated', value: 'ml', effect: 'NoSchedule' }] }),
        nodeClass: nodeClass({
          amiFamily: 'AL2',
          kubelet: {
            systemReserved: { memory: '100Mi', cpu: '100m' },
            evictionHard: { 'memory.available': '5%' },
          },
          instanceStorePolicy: 'RAID0',
        }),
      }),
    );
    const all = parts(text);
    expect(all).toHaveLength(1);
    expect(mimeHeader(all[0], 'Content-Type')).toBe('text/x-shellscript; charset="us-ascii"');
    expect(all[0].content).toBe(
      [
        '#!/bin/bash -xe',
        'exec > >(tee /var/log/user-data.log|logger -t user-data -s 2>/dev/console) 2>&1',
        `/etc/eks/bootstrap.sh 'demo' --apiserver-endpoint '${cluster.endpoint}' --b64-cluster-ca '${cluster.certificateAuthority}' \\`,
        "--dns-cluster-ip '10.100.0.10' \\",
        '--use-max-pods false \\',
        `--kubelet-extra-args '--node-labels="karpenter.k8s.aws/ec2nodeclass=default,karpenter.sh/capacity-type=spot,karpenter.sh/do-not-sync-taints=true,karpenter.sh/nodepool=default" --register-with-taints="dedicated=ml:NoSchedule,karpenter.sh/unregistered:NoExecute" --max-pods=29 --system-reserved="cpu=100m,memory=100Mi" --eviction-hard="memory.available<5%"' \\`,
        '--local-disks raid0',
      ].join('\n'),
    );
  });

  it("runs the EC2NodeClass's script first and asks for IPv6 when the cluster DNS is IPv6", () => {
    const text = eksBootstrapUserData(
      bootstrap({
        nodeClass: nodeClass({ amiFamily: 'AL2', userData: '#!/bin/bash\necho custom' }),
        cluster: { ...cluster, ipFamily: 'ipv6', clusterDns: 'fd00:10:100::a' },
      }),
    );
    const all = parts(text);
    expect(all.map((p) => p.content.split('\n')[1])).toEqual([
      'echo custom',
      expect.stringContaining('exec >'),
    ]);
    expect(all[1].content).toContain("--ip-family ipv6 \\\n--dns-cluster-ip 'fd00:10:100::a'");
  });
});
