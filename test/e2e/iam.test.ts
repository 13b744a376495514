import { CreateFleetCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { CreateInstanceProfileCommand, DeleteInstanceProfileCommand } from '@aws-sdk/client-iam';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeAuthorizationMessage } from '../../sim/fakes/aws/iam-policy/authorization';
import type { PolicyDocument, PolicyStatement } from '../../sim/fakes/aws/iam-policy/evaluate';
import type { StackPolicies } from '../../sim/fakes/aws/iam-policy/stack-policies';
import { type ClusterWorld, clusterWorld, worldStackPolicies } from '../../sim/world/cluster-world';
import { FunctionRouter } from '../../sim/world/function-router';
import {
  lambdaContext,
  type ProvisionerWorld,
  podsPendingEvent,
  provisionerWorld,
  seedPendingPods,
} from '../functions/provisioner/world';

/**
 * The fakes enforce the stack's own IAM: a launch the stack does not permit fails here as it
 * would in an account. The policies are those infra/ synthesizes (sim/fakes/aws/iam-policy/
 * stack-policies.ts); each case removes or exercises one permission.
 */

let w: ProvisionerWorld | undefined;
let world: ClusterWorld | undefined;
afterEach(async () => {
  await w?.world.close();
  await world?.close();
  w = undefined;
  world = undefined;
});

/** `policies` with `resource` removed from the functions' statement `sid`. */
function withoutResource(policies: StackPolicies, sid: string, resource: string): StackPolicies {
  const strip = (doc: PolicyDocument): PolicyDocument => ({
    Statement: doc.Statement.map((s: PolicyStatement) =>
      s.Sid === sid ? { ...s, Resource: [s.Resource ?? []].flat().filter((r) => !r.endsWith(resource)) } : s,
    ),
  });
  return { ...policies, functions: policies.functions.map(strip) };
}

const instances = (pw: ProvisionerWorld) => pw.world.fakes.ec2.listInstances();

describe("IAM: the fakes enforce the stack's policies", () => {
  it('launches a spot NodeClaim with the stack as synthesized (spot requests are created and tagged with the cluster tags)', async () => {
    w = await provisionerWorld(['m5.large'], 'spot');
    const pods = seedPendingPods(w.world, 2);
    const summary = await w.handler(podsPendingEvent(pods), lambdaContext('r1'));
    expect(summary).toMatchObject({ nodeClaimsLaunched: 1 });
    expect(instances(w).map((i) => i.InstanceLifecycle)).toEqual(['spot']);
    expect(w.world.fakes.ec2.calls.filter((c) => c.error?.name === 'UnauthorizedOperation')).toEqual([]);
    expect(w.world.fakes.iam.calls.filter((c) => c.error?.name === 'AccessDenied')).toEqual([]);
  });

  it('refuses the spot launch with UnauthorizedOperation once CreateTags on spot-instances-request is removed, as AWS refused Karpenter before it added it', async () => {
    const policies = withoutResource(
      await worldStackPolicies(),
      'AllowScopedResourceCreationTagging',
      ':spot-instances-request/*',
    );
    w = await provisionerWorld(['m5.large'], 'spot', { policies });
    const pods = seedPendingPods(w.world, 2);
    await w.handler(podsPendingEvent(pods), lambdaContext('r1'));

    expect(instances(w)).toEqual([]);
    const refused = w.world.fakes.ec2.calls.filter((c) => c.operation === 'CreateFleet');
    expect(refused.length).toBeGreaterThan(0);
    const error = refused[0]?.error;
    expect(error?.name).toBe('UnauthorizedOperation');
    expect(error?.message).toMatch(
      /^You are not authorized to perform this operation\. User: arn:aws:sts::123456789012:assumed-role\/podlift-functions\/functions is not authorized to perform: ec2:CreateTags on resource: arn:aws:ec2:us-east-1:123456789012:spot-instances-request\/\* because no identity-based policy allows the ec2:CreateTags action\. Encoded authorization failure message: /,
    );
    const decoded = decodeAuthorizationMessage(error?.message ?? '');
    expect(decoded.explicitDeny).toBe(false);
    expect(decoded.context.conditions).toMatchObject({
      'ec2:CreateAction': 'CreateFleet',
      'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
      'aws:RequestTag/eks:eks-cluster-name': 'demo',
      'aws:RequestTag/karpenter.sh/nodepool': 'default',
    });
  });

  it('still launches on-demand without that permission: on-demand launches make no spot request', async () => {
    const policies = withoutResource(
      await worldStackPolicies(),
      'AllowScopedResourceCreationTagging',
      ':spot-instances-request/*',
    );
    w = await provisionerWorld(['m5.large'], 'on-demand', { policies });
    await w.handler(podsPendingEvent(seedPendingPods(w.world, 1)), lambdaContext('r1'));
    expect(instances(w).map((i) => i.InstanceLifecycle ?? 'on-demand')).toEqual(['on-demand']);
  });

  it("refuses what a role was not given: termination cannot launch, the watcher can only put events on the cluster's bus", async () => {
    world = await clusterWorld();
    const termination = world.clientsOf('termination');
    await expect(
      termination.ec2.send(
        new CreateFleetCommand({
          Type: 'instant',
          LaunchTemplateConfigs: [],
          TargetCapacitySpecification: { TotalTargetCapacity: 1, DefaultTargetCapacityType: 'on-demand' },
          TagSpecifications: [
            { ResourceType: 'fleet', Tags: [{ Key: 'kubernetes.io/cluster/demo', Value: 'owned' }] },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'UnauthorizedOperation', $metadata: { httpStatusCode: 403 } });
    const watcher = world.clientsOf('watcher');
    const entry = { Source: 'podlift.watcher', DetailType: 'PodsPending', Detail: '{}' };
    await expect(
      watcher.eventBridge.send(
        new PutEventsCommand({ Entries: [{ ...entry, EventBusName: 'podlift-demo' }] }),
      ),
    ).resolves.toMatchObject({ FailedEntryCount: 0 });
    await expect(
      watcher.eventBridge.send(new PutEventsCommand({ Entries: [{ ...entry, EventBusName: 'default' }] })),
    ).rejects.toMatchObject({
      name: 'AccessDeniedException',
      message:
        'User: arn:aws:sts::123456789012:assumed-role/podlift-watcher/watcher is not authorized to perform: events:PutEvents on resource: arn:aws:events:us-east-1:123456789012:event-bus/default because no identity-based policy allows the events:PutEvents action',
    });
    await expect(
      watcher.ec2.send(
        new CreateFleetCommand({
          Type: 'instant',
          LaunchTemplateConfigs: [],
          TargetCapacitySpecification: { TotalTargetCapacity: 1 },
        }),
      ),
    ).rejects.toMatchObject({
      name: 'UnauthorizedOperation',
    });
  });

  it("creates instance profiles only with Karpenter's request tags, and deletes them only from termination's role", async () => {
    world = await clusterWorld();
    const functions = world.clientsOf('provisioner').iam;
    const tags = (extra: Record<string, string>) =>
      Object.entries({
        'kubernetes.io/cluster/demo': 'owned',
        'topology.kubernetes.io/region': 'us-east-1',
        'karpenter.k8s.aws/ec2nodeclass': 'default',
        ...extra,
      }).map(([Key, Value]) => ({ Key, Value }));
    const create = (name: string, extra: Record<string, string>) =>
      functions.send(
        new CreateInstanceProfileCommand({
          InstanceProfileName: name,
          Path: '/karpenter/us-east-1/demo/',
          Tags: tags(extra),
        }),
      );
    await expect(create('without-cluster-name', {})).rejects.toMatchObject({
      name: 'AccessDenied',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(create('with-cluster-name', { 'eks:eks-cluster-name': 'demo' })).resolves.toBeDefined();
    await expect(
      functions.send(new DeleteInstanceProfileCommand({ InstanceProfileName: 'with-cluster-name' })),
    ).rejects.toMatchObject({ name: 'AccessDenied' });
    await expect(
      world
        .clientsOf('termination')
        .iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: 'with-cluster-name' })),
    ).resolves.toBeDefined();
  });

  it("lets Lambda's SQS event source poll the interruption queue only with the function role's queue permissions", async () => {
    const warning = {
      version: '0',
      id: 'w-1',
      'detail-type': 'EC2 Spot Instance Interruption Warning',
      source: 'aws.ec2',
      account: '123456789012',
      time: '2026-01-01T00:00:00Z',
      region: 'us-east-1',
      resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-00000000000000001'],
      detail: { 'instance-id': 'i-00000000000000001', 'instance-action': 'terminate' },
    };
    const stack = await worldStackPolicies();
    const withoutQueue = {
      ...stack,
      functions: stack.functions.filter((doc) => !JSON.stringify(doc).includes('sqs:ReceiveMessage')),
    };
    world = await clusterWorld({ policies: withoutQueue });
    const router = new FunctionRouter(world, () => undefined);
    router.putDefaultBusEvent(warning);
    await router.runDue();
    expect(router.queue.depth).toBe(1);
    expect(router.invocations).toEqual([
      expect.objectContaining({
        fn: 'interruption',
        outcome: 'threw',
        error: expect.stringMatching(
          /not authorized to perform: sqs:ReceiveMessage on resource: arn:aws:sqs:us-east-1:123456789012:podlift-demo-interruption/,
        ),
      }),
    ]);
    await world.close();

    world = await clusterWorld();
    const allowed = new FunctionRouter(world, () => undefined);
    allowed.putDefaultBusEvent(warning);
    await allowed.runDue();
    expect(allowed.queue.depth).toBe(0);
    expect(allowed.invocations.map((i) => [i.fn, i.trigger])).toEqual([['interruption', 'sqs']]);
  });

  it("terminates only instances tagged for the cluster and a NodePool (Karpenter's AllowScopedDeletion), from either role", async () => {
    world = await clusterWorld();
    const ec2 = world.fakes.ec2;
    const owned = [
      { Key: 'kubernetes.io/cluster/demo', Value: 'owned' },
      { Key: 'karpenter.sh/nodepool', Value: 'default' },
    ];
    const ours = ec2.launchOutside({ instanceType: 'm5.large', tags: owned });
    const noPool = ec2.launchOutside({ instanceType: 'm5.large', tags: [owned[0]!] });
    const otherCluster = ec2.launchOutside({
      instanceType: 'm5.large',
      tags: [{ Key: 'kubernetes.io/cluster/other', Value: 'owned' }, owned[1]!],
    });
    const terminate = (principal: 'termination' | 'disruption', id: string) =>
      world!.clientsOf(principal).ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
    for (const id of [noPool, otherCluster]) {
      await expect(terminate('termination', id)).rejects.toMatchObject({ name: 'UnauthorizedOperation' });
      await expect(terminate('disruption', id)).rejects.toMatchObject({ name: 'UnauthorizedOperation' });
    }
    await expect(terminate('termination', ours)).resolves.toBeDefined();
    expect(ec2.instance(noPool)?.State?.Name).toBe('pending');
    expect(ec2.instance(otherCluster)?.State?.Name).toBe('pending');
    expect(ec2.instance(ours)?.State?.Name).toBe('shutting-down');
  });
});
