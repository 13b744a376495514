import { describe, expect, it } from 'vitest';
import { bottlerocketUserData } from '../../../shared/aws/userdata/bottlerocket';
import { parseToml, type TomlTable } from '../../../shared/aws/userdata/toml';
import { isValidationError, type ValidationError } from '../../../shared/core/model/errors';
import { clusterInfo as cluster } from '../../../sim/world/aws/region';
import { nodeClaim, nodeClass } from '../../../sim/world/builders';
import { bootstrap } from './fixtures';

/** Karpenter's Bottlerocket test input (testdata/br_userdata_input.golden), with its Go %s filled in. */
const USER_SETTINGS = `[settings.kubernetes]
api-server = 'replaceme'
cloud-provider = 'external'
cluster-certificate = "replaceme"
cluster-name = 'replaceme'
max-pods = 9999999999 # replaceme

[settings.kubernetes.eviction-hard]
"memory.available" = "12%"

[settings.kubernetes.node-labels]
"custom-node-label" = "custom"
"karpenter.sh/nodepool" = "should-be-overridden"

[settings.kubernetes.node-taints]
"replace" = ["me:Schedule"]

[settings.network]
hostname = "test.local"
no-proxy = ["localhost", "127.0.0.1"]

[settings.ntp]
time-servers = ["169.254.169.123"]
`;

function kubernetesSettings(toml: string): TomlTable {
  const settings = parseToml(toml).settings as TomlTable;
  return settings.kubernetes as TomlTable;
}

function userDataError(userData: string): ValidationError {
  try {
    bottlerocketUserData(
      bootstrap({ nodeClass: nodeClass({ name: 'br', amiFamily: 'Bottlerocket', userData }) }),
    );
  } catch (e) {
    if (isValidationError(e)) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('bottlerocketUserData', () => {
  it('writes the cluster, max pods, DNS, labels and taints as [settings.kubernetes]', () => {
    const toml = bottlerocketUserData(
      bootstrap({
        nodeClaim: nodeClaim({ taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] }),
      }),
    );
    expect(toml).toContain('[settings.kubernetes]\ncluster-name = "demo"\n');
    expect(toml).toContain('"karpenter.sh/unregistered" = [ ":NoExecute" ]');
    expect(kubernetesSettings(toml)).toEqual({
      'cluster-name': 'demo',
      'api-server': cluster.endpoint,
      'cluster-certificate': cluster.certificateAuthority,
      'max-pods': 29,
      'cluster-dns-ip': '10.100.0.10',
      'node-labels': {
        'karpenter.k8s.aws/ec2nodeclass': 'default',
        'karpenter.sh/capacity-type': 'spot',
        'karpenter.sh/do-not-sync-taints': 'true',
        'karpenter.sh/nodepool': 'default',
      },
      'node-taints': { dedicated: ['gpu:NoSchedule'], 'karpenter.sh/unregistered': [':NoExecute'] },
    });
  });

  it("keeps the user's settings except the ones podlift sets: cluster, max pods, labels win, taints replaced", () => {
    const toml = bottlerocketUserData(
      bootstrap({ nodeClass: nodeClass({ amiFamily: 'Bottlerocket', userData: USER_SETTINGS }) }),
    );
    const doc = parseToml(toml);
    const settings = doc.settings as TomlTable;
    expect(settings.network).toEqual({ hostname: 'test.local', 'no-proxy': ['localhost', '127.0.0.1'] });
    expect(settings.ntp).toEqual({ 'time-servers': ['169.254.169.123'] });
    const k = settings.kubernetes as TomlTable;
    expect(k['cloud-provider']).toBe('external');
    expect(k['cluster-name']).toBe('demo');
    expect(k['api-server']).toBe(cluster.endpoint);
    expect(k['cluster-certificate']).toBe(cluster.certificateAuthority);
    expect(k['max-pods']).toBe(29);
    expect(k['eviction-hard']).toEqual({ 'memory.available': '12%' });
    expect(k['node-labels']).toEqual({
      'custom-node-label': 'custom',
      'karpenter.sh/nodepool': 'default',
      'karpenter.k8s.aws/ec2nodeclass': 'default',
      'karpenter.sh/capacity-type': 'spot',
      'karpenter.sh/do-not-sync-taints': 'true',
    });
    expect(k['node-taints']).toEqual({ 'karpenter.sh/unregistered': [':NoExecute'] });
  });

  it("replaces reserved resources, eviction thresholds and image GC only when the EC2NodeClass's kubelet sets them", () => {
    const toml = bottlerocketUserData(
      bootstrap({
        nodeClass: nodeClass({
          amiFamily: 'Bottlerocket',
          userData: `${USER_SETTINGS}\n[settings.kubernetes.kube-reserved]\ncpu = "1"\n`,
          kubelet: {
            systemReserved: { memory: '200Mi' },
            evictionHard: { 'memory.available': '5%' },
            imageGCHighThresholdPercent: 80,
            imageGCLowThresholdPercent: 60,
            cpuCFSQuota: true,
            clusterDNS: ['10.0.0.10', '10.0.0.11'],
          },
        }),
      }),
    );
    const k = kubernetesSettings(toml);
    expect(k['system-reserved']).toEqual({ memory: '200Mi' });
    expect(k['kube-reserved']).toEqual({ cpu: '1' });
    expect(k['eviction-hard']).toEqual({ 'memory.available': '5%' });
    expect(k['image-gc-high-threshold-percent']).toBe('80');
    expect(k['image-gc-low-threshold-percent']).toBe('60');
    expect(k['cpu-cfs-quota-enforced']).toBe(true);
    expect(k['cluster-dns-ip']).toEqual(['10.0.0.10', '10.0.0.11']);
  });

  it("writes soft eviction and the pod grace period under Karpenter's TOML keys, durations as Go writes them", () => {
    const toml = bottlerocketUserData(
      bootstrap({
        nodeClass: nodeClass({
          amiFamily: 'Bottlerocket',
          kubelet: {
            evictionSoft: { 'memory.available': '10%', 'nodefs.available': '15%' },
            evictionSoftGracePeriod: { 'memory.available': '90s', 'nodefs.available': '1h' },
            evictionMaxPodGracePeriod: 60,
          },
        }),
      }),
    );
    const k = kubernetesSettings(toml);
    expect(k['eviction-soft']).toEqual({ 'memory.available': '10%', 'nodefs.available': '15%' });
    expect(k['eviction-soft-grace-period']).toEqual({
      'memory.available': '1m30s',
      'nodefs.available': '1h0m0s',
    });
    expect(k['eviction-max-pod-grace-period']).toBe(60);
    expect(toml).toContain('eviction-max-pod-grace-period = 60\n');
  });

  it('adds the bootstrap command that mounts the instance store for RAID0', () => {
    const toml = bottlerocketUserData(
      bootstrap({ nodeClass: nodeClass({ amiFamily: 'Bottlerocket', instanceStorePolicy: 'RAID0' }) }),
    );
    const settings = parseToml(toml).settings as TomlTable;
    expect(settings['bootstrap-commands']).toEqual({
      '000-mount-instance-storage': {
        commands: [
          ['apiclient', 'ephemeral-storage', 'init'],
          [
            'apiclient',
            'ephemeral-storage',
            'bind',
            '--dirs',
            '/var/lib/containerd',
            '/var/lib/kubelet',
            '/var/log/pods',
          ],
        ],
        mode: 'always',
        essential: true,
      },
    });
  });

  it('rejects userData that is not TOML, naming the EC2NodeClass, spec.userData and the line', () => {
    const error = userDataError('[settings.kubernetes]\nmax-pods = = 3\n');
    expect(error.issues[0].field).toBe('spec.userData');
    expect(error.location.object).toBe('EC2NodeClass/br');
    expect(error.message).toMatch(/^EC2NodeClass\/br: spec\.userData: not valid TOML: line 2, column \d+/);
  });

  it('rejects settings that are not tables', () => {
    expect(userDataError('settings = "flat"').message).toContain('settings must be a TOML table');
    expect(userDataError('[settings]\nkubernetes = 3').message).toContain(
      'settings.kubernetes must be a TOML table',
    );
    expect(userDataError('[settings.kubernetes]\nnode-labels = []').message).toContain(
      'settings.kubernetes.node-labels must be a TOML table',
    );
  });
});
