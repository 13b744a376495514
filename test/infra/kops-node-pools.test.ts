import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import { afterAll, describe, expect, it } from 'vitest';
import { podliftPropsFromContext } from '../../infra/context';
import { nodePoolParameters } from '../../infra/parts/node-pool-parameters';
import { removeTestApps, synthStack } from './test-app';

const FIXTURE = new URL('../fixtures/kops/karpenter-instancegroups.yaml', import.meta.url);
const IG_NAMES = ['karpenter-nodes-default', 'karpenter-nodes-single-machinetype'];

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  removeTestApps();
});

/** A folder with the InstanceGroups file and, unless `scripts` is false, the nodeup scripts beside it. */
function kopsFolder(scripts = true): string {
  const dir = mkdtempSync(join(tmpdir(), 'podlift-kops-'));
  dirs.push(dir);
  copyFileSync(FIXTURE, join(dir, 'cluster.yaml'));
  if (scripts) {
    for (const name of IG_NAMES) {
      mkdirSync(join(dir, 'igconfig/node', name), { recursive: true });
      writeFileSync(join(dir, 'igconfig/node', name, 'nodeupscript.sh'), `#!/bin/bash\n# nodeup ${name}\n`);
    }
  }
  return join(dir, 'cluster.yaml');
}

describe('nodePoolFiles with kOps InstanceGroups', () => {
  it('stores the EC2NodeClass and NodePool kOps generates, with the nodeup script beside the file', () => {
    const file = kopsFolder();
    const params = nodePoolParameters('minimal', { files: [file], kopsRootDeviceName: '/dev/sda1' });
    expect(params.map((p) => p.parameterName)).toEqual([
      '/podlift/minimal/nodeclasses/karpenter-nodes-default',
      '/podlift/minimal/nodepools/karpenter-nodes-default',
      '/podlift/minimal/nodeclasses/karpenter-nodes-single-machinetype',
      '/podlift/minimal/nodepools/karpenter-nodes-single-machinetype',
    ]);
    const nodeClass = JSON.parse(params[0].value);
    expect(nodeClass.spec.userData).toBe('#!/bin/bash\n# nodeup karpenter-nodes-default\n');
    expect(nodeClass.spec.blockDeviceMappings[0].deviceName).toBe('/dev/sda1');
    expect(JSON.parse(params[3].value).spec.replicas).toBe(2);
  });

  it('fails synth when a nodeup script is missing, rather than deploy a placeholder', () => {
    const file = kopsFolder(false);
    expect(() => nodePoolParameters('minimal', { files: [file] })).toThrow(
      `${file}, document 4, InstanceGroup/karpenter-nodes-default: userData: needs kOps' nodeup script for this InstanceGroup: copy <configBase>/igconfig/node/karpenter-nodes-default/nodeupscript.sh there`,
    );
  });

  it('fails synth on what kOps refuses', () => {
    const file = kopsFolder();
    writeFileSync(file, readFileSync(file, 'utf8').replace('maxSize: 10', 'maxSize: 0'));
    expect(() => nodePoolParameters('minimal', { files: [file] })).toThrow(
      'InstanceGroup/karpenter-nodes-single-machinetype: spec.maxSize: must be greater than zero (got 0)',
    );
  });

  it('reads kopsRootDeviceName from the context and warns at synth about what kOps would have added', () => {
    const file = kopsFolder();
    const context: Record<string, string> = {
      cluster: 'minimal',
      nodePoolFiles: file,
      kopsRootDeviceName: '/dev/xvda',
    };
    expect(podliftPropsFromContext((k) => context[k]).nodePools).toEqual({
      files: [file],
      kopsRootDeviceName: '/dev/xvda',
    });
    const { stack } = synthStack({ nodePools: { files: [file] } });
    Annotations.fromStack(stack).hasWarning(
      '*',
      Match.stringLikeRegexp(
        'InstanceGroup/karpenter-nodes-default: blockDeviceMappings left out \\(root volume 128Gi gp3\\)',
      ),
    );
  });
});
