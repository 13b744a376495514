import { CreateLaunchTemplateCommand, DescribeLaunchTemplatesCommand } from '@aws-sdk/client-ec2';
import { CreateInstanceProfileCommand, ListInstanceProfilesCommand } from '@aws-sdk/client-iam';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeOf } from '../../../functions/runtime';
import { makeTerminationHandler } from '../../../functions/termination/handler';
import { RecordingObservability } from '../../../sim/fakes/ports/recording-observability';
import { worldStackPolicies } from '../../../sim/world/cluster-world';
import {
  lambdaContext,
  type ProvisionerWorld,
  scheduledEvent,
  seedPendingPods,
  withOneNode,
} from '../provisioner/world';

// biome-ignore lint/suspicious/noExplicitAny: the tests read the API server's untyped JSON
type Json = Record<string, any>;
let w: ProvisionerWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  w = undefined;
});

const MINUTE = 60_000;
/** A second role the cluster world's IAM has (the worlds' EC2NodeClasses name KarpenterNodeRole-demo). */
const NEW_ROLE = 'KarpenterNodeRole';

/** One node launched by the provisioner (m5.large; m5.xlarge for a bigger pod), and the termination handler. */
async function gcWorld() {
  // Replacing the node role needs PassRole on the new one too: the operator grants it.
  const stack = await worldStackPolicies();
  const passNewRole = {
    Statement: [
      {
        Effect: 'Allow' as const,
        Action: 'iam:PassRole',
        Resource: `arn:aws:iam::123456789012:role/${NEW_ROLE}`,
        Condition: { StringEquals: { 'iam:PassedToService': 'ec2.amazonaws.com' } },
      },
    ],
  };
  const policies = { ...stack, functions: [...stack.functions, passNewRole] };
  const { pw, claimName } = await withOneNode([], ['m5.large', 'm5.xlarge'], 'on-demand', { policies });
  w = pw;
  const seen = new RecordingObservability();
  // Termination's own role and Kubernetes identity (a world's default ports are the provisioner's).
  const runtime = runtimeOf(
    'termination',
    pw.world.composeAgain('termination'),
    pw.world.time,
    seen.log,
    seen.metricsPort,
  );
  let n = 0;
  const terminate = () =>
    makeTerminationHandler(() => runtime)(scheduledEvent(`t${++n}`), lambdaContext(`t${n}`));
  let p = 0;
  const provision = () => pw.handler(scheduledEvent(`p${++p}`), lambdaContext(`p${p}`));
  const editNodeClass = (edit: (spec: Json) => Json) => {
    const store = pw.world.fakes.kube.store;
    const current = store.get('ec2nodeclasses.karpenter.k8s.aws', 'default') as Json;
    store.update('ec2nodeclasses.karpenter.k8s.aws', {
      ...current,
      spec: edit(structuredClone(current.spec)),
    });
  };
  return { pw, seen, claimName, terminate, provision, editNodeClass };
}

describe('termination: launch template garbage collection', () => {
  it('deletes a template nothing launched from for 10 minutes, keeps the one in use and other clusters’', async () => {
    const t = await gcWorld();
    const ec2 = t.pw.world.adminClients.ec2;
    await ec2.send(
      new CreateLaunchTemplateCommand({
        LaunchTemplateName: 'podlift/other/0123456789abcdef',
        LaunchTemplateData: { ImageId: 'ami-00000000000000001' },
        TagSpecifications: [
          { ResourceType: 'launch-template', Tags: [{ Key: 'karpenter.k8s.aws/cluster', Value: 'other' }] },
        ],
      }),
    );
    const names = async () =>
      ((await ec2.send(new DescribeLaunchTemplatesCommand({}))).LaunchTemplates ?? [])
        .map((lt) => lt.LaunchTemplateName ?? '')
        .sort();
    const before = await names();
    const [first] = before.filter((n) => n.startsWith('podlift/demo/'));
    expect(first).toBeDefined();

    expect(await t.terminate()).toMatchObject({ garbageCollected: 0 });
    expect(await names()).toEqual(before);

    // 11 minutes on, another launch uses the same template: in use, though created long ago.
    t.pw.world.time.advance(11 * MINUTE);
    seedPendingPods(t.pw.world, 2, '1500m', 'big'); // one fits on the node, one needs another
    expect(await t.provision()).toMatchObject({ nodeClaimsLaunched: 1 });
    expect(await names()).toEqual(before);
    expect(await t.terminate()).toMatchObject({ garbageCollected: 0 });
    expect(await names()).toEqual(before);

    // The EC2NodeClass changes (new tags): the next launch makes and uses a new template.
    t.pw.world.time.advance(11 * MINUTE);
    t.editNodeClass((spec) => ({ ...spec, tags: { team: 'data' } }));
    seedPendingPods(t.pw.world, 1, '3', 'bigger');
    expect(await t.provision()).toMatchObject({ nodeClaimsLaunched: 1 });
    const [second] = (await names()).filter((n) => n.startsWith('podlift/demo/') && n !== first);
    expect(second).toBeDefined();

    expect(await t.terminate()).toMatchObject({ garbageCollected: 1 });
    expect(await names()).toEqual(['podlift/other/0123456789abcdef', second].sort());
    expect(t.seen.total('ResourcesGarbageCollected', { kind: 'LaunchTemplate' })).toBe(1);

    // Gone for good once unused too; the next launch simply makes it again.
    t.pw.world.time.advance(11 * MINUTE);
    await t.terminate();
    expect(await names()).toEqual(['podlift/other/0123456789abcdef']);
    seedPendingPods(t.pw.world, 1, '3', 'biggest');
    expect((await t.provision())?.nodeClaimsLaunched).toBeGreaterThanOrEqual(1);
    expect(await names()).toContain(second);
    expect(await names()).not.toContain(first);
  });
});

describe('termination: instance profile garbage collection', () => {
  it('deletes the profile of a replaced role once no NodeClaim holds it, and nothing not tagged for the cluster', async () => {
    const t = await gcWorld();
    const iam = t.pw.world.adminClients.iam;
    const profiles = async () =>
      ((await iam.send(new ListInstanceProfilesCommand({}))).InstanceProfiles ?? [])
        .map((p) => p.InstanceProfileName ?? '')
        .sort();
    const [old] = await profiles();
    const claim = t.pw.world.fakes.kube.store.get('nodeclaims.karpenter.sh', t.claimName) as Json;
    expect(claim.metadata.annotations['karpenter.k8s.aws/instance-profile-name']).toBe(old);

    // A new role: the provisioner resolves the EC2NodeClass to a new profile of its own.
    t.editNodeClass((spec) => ({ ...spec, role: NEW_ROLE }));
    t.pw.world.time.advance(61 * MINUTE);
    await t.provision();
    const [fresh] = (await profiles()).filter((p) => p !== old);
    expect(fresh).toBeDefined();
    // Under the cluster's path but not tagged for it; and another cluster's.
    await iam.send(
      new CreateInstanceProfileCommand({
        InstanceProfileName: 'hand-made',
        Path: '/karpenter/us-east-1/demo/',
      }),
    );
    await iam.send(
      new CreateInstanceProfileCommand({
        InstanceProfileName: 'other-cluster',
        Path: '/karpenter/us-east-1/other/',
        Tags: [{ Key: 'kubernetes.io/cluster/other', Value: 'owned' }],
      }),
    );
    t.pw.world.time.advance(61 * MINUTE);

    // The old node still holds the old profile.
    await t.terminate();
    expect(t.seen.total('ResourcesGarbageCollected', { kind: 'InstanceProfile' })).toBe(0);
    expect((await profiles()).sort()).toEqual(['hand-made', old, 'other-cluster', fresh].sort());

    // The old node is gone: its profile follows; the current one, the hand-made and the other cluster's stay.
    const store = t.pw.world.fakes.kube.store;
    const current = store.get('nodeclaims.karpenter.sh', t.claimName) as Json;
    store.update('nodeclaims.karpenter.sh', {
      ...current,
      metadata: { ...current.metadata, finalizers: [] },
    });
    store.delete('nodeclaims.karpenter.sh', t.claimName);
    await t.terminate();
    expect((await profiles()).sort()).toEqual(['hand-made', 'other-cluster', fresh].sort());
    expect(t.seen.total('ResourcesGarbageCollected', { kind: 'InstanceProfile' })).toBe(1);
    expect(t.seen.lines.some((l) => l.message.includes('not tagged for the cluster'))).toBe(true);
  });
});
