import { DeleteLaunchTemplateCommand, DescribeLaunchTemplatesCommand } from '@aws-sdk/client-ec2';
import { describe, expect, it } from 'vitest';
import { CLIENT_TOKEN_WINDOW_MS, fleetClientToken } from '../../../shared/aws/fleet/client-token';
import { UNAVAILABLE_OFFERING_TTL_MS } from '../../../shared/core/catalog/unavailable-offerings';
import { InsufficientCapacityError } from '../../../shared/core/model/errors';
import type { MissingLaunchTemplateAnswer } from '../../../sim/fakes/aws/ec2';
import {
  launcherWorld,
  launchRequest,
  RESOLVED_NODE_CLASS,
  worldLauncher,
  worldTemplateProvider,
} from '../../../sim/world/aws/launch-world';
import { SUBNET_B } from '../../../sim/world/aws/region';
import { nodeClaim } from '../../../sim/world/builders';

const world = launcherWorld;

/** The launch world with the real launch template provider, whose templates can be deleted behind its back. */
async function providerWorld(answer: MissingLaunchTemplateAnswer) {
  const w = await launcherWorld();
  w.fake.setMissingLaunchTemplateAnswer(answer);
  const launcher = worldLauncher(w, w.policy, { launchTemplates: worldTemplateProvider(w) });
  const request = (name: string) =>
    launchRequest(w.instanceTypes, {
      nodeClaim: nodeClaim({ name, uid: `uid-${name}` }),
      resolved: RESOLVED_NODE_CLASS,
    });
  const deleteProviderTemplates = async () => {
    const listed = await w.ec2.send(new DescribeLaunchTemplatesCommand({}));
    for (const t of listed.LaunchTemplates ?? []) {
      if (t.LaunchTemplateName?.startsWith('podlift/demo/'))
        await w.ec2.send(new DeleteLaunchTemplateCommand({ LaunchTemplateId: t.LaunchTemplateId }));
    }
  };
  return { ...w, launcher, request, deleteProviderTemplates };
}

describe('Ec2InstanceLauncher idempotency', () => {
  it('returns the instance the NodeClaim already has, found by its tag, without launching another', async () => {
    const w = await world();
    const { fake, fleetCalls } = w;
    const request = launchRequest(w.instanceTypes);
    const first = await worldLauncher(w, w.policy).launch(request);
    // Another invocation (a new launcher), after offerings were refused elsewhere: its request
    // would differ, but the NodeClaim's instance is found before anything is asked.
    w.unavailable.mark('m5.large', 'us-east-1b', 'spot', 'InsufficientInstanceCapacity');

    const again = await worldLauncher(w, w.policy).launch(request);

    expect(again).toStrictEqual({ ...first, privateDnsName: expect.stringMatching(/\.ec2\.internal$/) });
    expect(fleetCalls()).toHaveLength(1);
    expect(fake.listInstances()).toHaveLength(1);
  });

  it('launches anew when the instance the NodeClaim had is shutting down', async () => {
    const { launcher, fake, instanceTypes, fleetCalls } = await world();
    const first = await launcher.launch(launchRequest(instanceTypes));
    await launcher.terminate([first.instanceId]);

    // The same request, in the same token window: only what it replaces tells it apart.
    const second = await launcher.launch(launchRequest(instanceTypes));

    expect(second.instanceId).not.toBe(first.instanceId);
    expect(fake.instance(second.instanceId)?.State?.Name).toBe('pending');
    expect(fleetCalls()).toHaveLength(2);
  });

  it('relaunches a NodeClaim refused for capacity with a new request under a new token', async () => {
    const { launcher, fake, instanceTypes, fleetCalls, fleetErrors } = await world();
    fake.capacity.setCapacity({ capacityType: 'spot' }, 0);
    const refused = await launcher.launch(launchRequest(instanceTypes)).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InsufficientCapacityError);
    fake.capacity.setCapacity({ capacityType: 'spot' }, Infinity);

    // Spot is marked unavailable now, so the request asks for on-demand: another request.
    const launched = await launcher.launch(launchRequest(instanceTypes));

    expect(launched.capacityType).toBe('on-demand');
    expect(fleetErrors()).toStrictEqual([undefined, undefined]);
    expect(fleetCalls()[1]!.ClientToken).not.toBe(fleetCalls()[0]!.ClientToken);
  });

  it('asks again under a new token once the refused offerings are back, even with the very same request', async () => {
    const { launcher, fake, clock, instanceTypes, fleetCalls } = await world();
    const request = launchRequest(instanceTypes, {
      nodeClaim: nodeClaim({ capacityTypes: ['spot'] }),
      types: ['m5.large'],
      subnets: [{ id: SUBNET_B, zone: 'us-east-1b', availableIpAddressCount: 1000 }],
    });
    fake.capacity.setCapacity({ capacityType: 'spot' }, 0);
    await expect(launcher.launch(request)).rejects.toBeInstanceOf(InsufficientCapacityError);
    fake.capacity.setCapacity({ capacityType: 'spot' }, Infinity);
    clock.advance(UNAVAILABLE_OFFERING_TTL_MS);

    const launched = await launcher.launch(request);

    expect(launched).toMatchObject({ instanceType: 'm5.large', zone: 'us-east-1b', capacityType: 'spot' });
    const [first, second] = fleetCalls().map(({ ClientToken, ...body }) => ({ ClientToken, body }));
    expect(second!.body).toStrictEqual(first!.body);
    expect(second!.ClientToken).not.toBe(first!.ClientToken);
  });

  it('derives the client token from the NodeClaim, the request, what it replaces and its window', () => {
    const request = {
      Type: 'instant' as const,
      LaunchTemplateConfigs: [],
      TargetCapacitySpecification: { TotalTargetCapacity: 1 },
    };
    const token = (changes: Partial<Parameters<typeof fleetClientToken>[0]> = {}) =>
      fleetClientToken({ nodeClaim: nodeClaim(), request, now: 0, ...changes });
    const tokens = new Set([
      token(),
      token({ nodeClaim: nodeClaim({ name: 'default-abcd' }) }),
      token({ nodeClaim: nodeClaim({ uid: '6f1c2a7e-0000-4000-8000-000000000002' }) }),
      token({ nodeClaim: nodeClaim({ name: 'x'.repeat(253) }) }),
      token({ request: { ...request, TargetCapacitySpecification: { TotalTargetCapacity: 2 } } }),
      token({ now: CLIENT_TOKEN_WINDOW_MS }),
      token({ replaces: ['i-00000000000000001'] }),
    ]);
    expect(tokens.size).toBe(7);
    for (const t of tokens) expect(t).toMatch(/^podlift-[0-9a-f]{56}$/);
    expect(token({ now: CLIENT_TOKEN_WINDOW_MS - 1 })).toBe(token());
  });

  for (const answer of ['request', 'fleet-errors'] as const) {
    it(`recreates launch templates deleted behind its back and launches in the same call (EC2 answering per ${answer})`, async () => {
      const { launcher, fake, request, deleteProviderTemplates, fleetCalls, fleetErrors } =
        await providerWorld(answer);
      await launcher.launch(request('default-aaaa'));
      await deleteProviderTemplates();
      fake.calls.length = 0;

      const launched = await launcher.launch(request('default-bbbb'));

      expect(launched.instanceId).toMatch(/^i-/);
      expect(fleetErrors()).toStrictEqual(
        answer === 'request' ? ['InvalidLaunchTemplateId.NotFound', undefined] : [undefined, undefined],
      );
      const [refused, recreated] = fleetCalls().map(
        (c) => c.LaunchTemplateConfigs?.[0]?.LaunchTemplateSpecification,
      );
      expect(recreated?.LaunchTemplateId).not.toBe(refused?.LaunchTemplateId);
      expect(fleetCalls()[1]!.ClientToken).not.toBe(fleetCalls()[0]!.ClientToken);
      expect(fake.listInstances().filter((i) => i.InstanceId === launched.instanceId)).toHaveLength(1);
    });
  }
});
