import { afterEach, describe, expect, it } from 'vitest';
import { PlanJsonSchema } from '../../cli/plan-json';
import { run } from '../../cli/run';
import { type FakeKubeApiServer, startFakeKubeApiServer } from '../../sim/fakes/kube';
import { FakeIO, nodeClass, nodePool, pod, yamlStream } from './fixtures';

/**
 * `podlift plan --capacity-reservations`: the free instances of the reservations an EC2NodeClass
 * selects are planned first, as capacity type `reserved`, as the provisioner plans them
 * (aws/karpenter-provider-aws pkg/providers/instance/instance.go `getCapacityType` tries
 * reserved first; reserved_capacity_resolver.go prices it at on-demand / 10,000,000), never more
 * NodeClaims into a reservation than it has free (kubernetes-sigs/karpenter
 * pkg/controllers/provisioning/scheduling/reservationmanager.go `CanReserve`).
 */

const RESERVATION = 'cr-0123456789abcdef0';
/** FakeIO's clock: 2026-11-27T12:00:00Z. */
const ENDED = '2026-11-27T11:00:00+00:00';

/** An EC2NodeClass with capacityReservationSelectorTerms. */
function reservingNodeClass(terms: unknown[]) {
  const base = nodeClass();
  return { ...base, spec: { ...(base.spec as object), capacityReservationSelectorTerms: terms } };
}

/** A NodePool of m5.xlarge that may launch reserved and on-demand capacity. */
const POOL = nodePool('default', {
  requirements: [
    { key: 'node.kubernetes.io/instance-type', operator: 'In', values: ['m5.xlarge'] },
    { key: 'karpenter.sh/capacity-type', operator: 'In', values: ['reserved', 'on-demand'] },
  ],
});

/** Four pods of 3 cpu: one m5.xlarge (3920m allocatable) each. */
const FOUR_NODES = [0, 1, 2, 3].map((i) => pod(`big-${i}`, { cpu: '3', memory: '1Gi' }));

/** One reservation as `aws ec2 describe-capacity-reservations --output json` prints it. */
function described(overrides: Record<string, unknown> = {}) {
  return {
    CapacityReservationId: RESERVATION,
    OwnerId: '111122223333',
    CapacityReservationArn: `arn:aws:ec2:us-east-1:111122223333:capacity-reservation/${RESERVATION}`,
    AvailabilityZoneId: 'use1-az2',
    InstanceType: 'm5.xlarge',
    InstancePlatform: 'Linux/UNIX',
    AvailabilityZone: 'us-east-1a',
    Tenancy: 'default',
    TotalInstanceCount: 5,
    AvailableInstanceCount: 3,
    EbsOptimized: true,
    EphemeralStorage: false,
    State: 'active',
    StartDate: '2026-11-01T00:00:00+00:00',
    EndDateType: 'unlimited',
    InstanceMatchCriteria: 'targeted',
    CreateDate: '2026-11-01T00:00:00+00:00',
    Tags: [{ Key: 'team', Value: 'ml' }],
    CapacityAllocations: [],
    ReservationType: 'default',
    ...overrides,
  };
}

function file(...reservations: unknown[]): string {
  return JSON.stringify({ CapacityReservations: reservations }, null, 4);
}

async function plan(input: string, reservations: string | undefined, ...flags: string[]) {
  const io = new FakeIO({
    'cluster.yaml': input,
    ...(reservations === undefined ? {} : { 'cr.json': reservations }),
  });
  const code = await run(
    [
      'plan',
      'cluster.yaml',
      ...(reservations === undefined ? [] : ['--capacity-reservations', 'cr.json']),
      ...flags,
    ],
    io,
  );
  return { code, out: io.out, err: io.err };
}

describe('podlift plan --capacity-reservations', () => {
  const cluster = yamlStream(POOL, reservingNodeClass([{ id: RESERVATION }]), ...FOUR_NODES);

  it('fills the 3 free instances of the reservation first and launches the 4th on-demand', async () => {
    const { code, out, err } = await plan(cluster, file(described()), '-o', 'json');
    expect(code).toBe(0);
    expect(err).toBe('');
    const json = PlanJsonSchema.parse(JSON.parse(out));
    const claims = json.nodeClaims.map((c) => [c.capacityType, c.zone, c.capacityReservationIds]);
    expect(claims.filter(([type]) => type === 'reserved')).toEqual([
      ['reserved', 'us-east-1a', [RESERVATION]],
      ['reserved', 'us-east-1a', [RESERVATION]],
      ['reserved', 'us-east-1a', [RESERVATION]],
    ]);
    const onDemand = json.nodeClaims.filter((c) => c.capacityType === 'on-demand');
    expect(onDemand).toHaveLength(1);
    expect(onDemand[0].capacityReservationIds).toBeUndefined();
    // m5.xlarge on-demand is $0.192/hour in us-east-1: the reserved ones round to 0.
    expect(onDemand[0].hourlyPrice).toBe(0.192);
    expect(json.summary).toEqual({ pods: 4, nodeClaims: 4, hourlyCost: 0.192 });
  });

  it('shows the capacity type and the reservation in the table', async () => {
    const { out } = await plan(cluster, file(described()));
    const row = `default   m5.xlarge      reserved   us-east-1a  ${RESERVATION}     1  0.0000`;
    expect(out).toContain(
      [
        'NODEPOOL  INSTANCE TYPE  CAPACITY   ZONE        RESERVATION           PODS  $/HOUR',
        row,
        row,
        row,
        'default   m5.xlarge      on-demand  us-east-1a  -                        1  0.1920',
      ].join('\n'),
    );
    expect(out).toContain('Reserved capacity is paid for with its reservation');
  });

  it('ignores a reservation past its end date and one not active, and says so', async () => {
    const ended = described({ EndDateType: 'limited', EndDate: ENDED });
    const cancelled = described({ CapacityReservationId: 'cr-0000000000000000c', State: 'cancelled' });
    const input = yamlStream(
      POOL,
      reservingNodeClass([{ id: RESERVATION }, { id: 'cr-0000000000000000c' }]),
      ...FOUR_NODES,
    );
    const { code, out, err } = await plan(input, file(ended, cancelled), '-o', 'json');
    expect(code).toBe(0);
    const json = PlanJsonSchema.parse(JSON.parse(out));
    expect(json.nodeClaims.map((c) => c.capacityType)).toEqual(Array(4).fill('on-demand'));
    expect(err).toContain(
      "warning: cr.json: EC2NodeClass default's capacityReservationSelectorTerms select none of the file's active reservations",
    );
    expect(err).toContain(
      `warning: cr.json: cr-0000000000000000c, ${RESERVATION} are not planned: not active, ended, or selected by no EC2NodeClass`,
    );
  });

  it('names at most 5 reservations it does not plan', async () => {
    const others = [1, 2, 3, 4, 5, 6, 7].map((i) =>
      described({ CapacityReservationId: `cr-000000000000000${i}`, Tags: [] }),
    );
    const input = yamlStream(POOL, reservingNodeClass([{ tags: { team: 'ml' } }]), ...FOUR_NODES);
    const { err } = await plan(input, file(described(), ...others), '-o', 'json');
    expect(err).toContain(
      'warning: cr.json: cr-0000000000000001, cr-0000000000000002, cr-0000000000000003, ' +
        'cr-0000000000000004, cr-0000000000000005 and 2 more are not planned',
    );
  });

  it('plans a capacity block ending within 40 minutes as Karpenter does: expiring, so not filled', async () => {
    const block = described({ ReservationType: 'capacity-block', EndDate: '2026-11-27T12:30:00+00:00' });
    const { out } = await plan(cluster, file(block), '-o', 'json');
    const json = PlanJsonSchema.parse(JSON.parse(out));
    expect(json.nodeClaims.map((c) => c.capacityType)).toEqual(Array(4).fill('on-demand'));
  });

  it('selects by tags and owner as the resolver asks EC2 to', async () => {
    const input = (terms: unknown[]) =>
      yamlStream(POOL, reservingNodeClass(terms), ...FOUR_NODES.slice(0, 1));
    const types = async (terms: unknown[]) =>
      PlanJsonSchema.parse(
        JSON.parse((await plan(input(terms), file(described()), '-o', 'json')).out),
      ).nodeClaims.map((c) => c.capacityType);
    expect(await types([{ tags: { team: 'ml' } }])).toEqual(['reserved']);
    expect(await types([{ tags: { team: '*' }, ownerID: '111122223333' }])).toEqual(['reserved']);
    expect(await types([{ tags: { team: 'web' } }])).toEqual(['on-demand']);
    expect(await types([{ tags: { team: 'ml' }, ownerID: '999999999999' }])).toEqual(['on-demand']);
    expect(await types([{ instanceMatchCriteria: 'open' }])).toEqual(['on-demand']);
    expect(await types([{ instanceMatchCriteria: 'targeted' }])).toEqual(['reserved']);
  });

  it('rejects a bad file naming the file, the reservation, the field and the value', async () => {
    const bad = await plan(cluster, file(described(), described({ AvailableInstanceCount: '3' })));
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('cr.json');
    expect(bad.err).toContain('CapacityReservations[1].AvailableInstanceCount');
    expect(bad.err).toContain('"3"');
    const date = await plan(cluster, file(described({ EndDate: 'tomorrow' })));
    expect(date.code).toBe(2);
    expect(date.err).toContain('CapacityReservations[0].EndDate');
    expect(date.err).toContain('tomorrow');
    const notJson = await plan(cluster, '{"CapacityReservations": [');
    expect(notJson.code).toBe(2);
    expect(notJson.err).toContain('cr.json');
    expect(notJson.err).toContain('not valid JSON');
    const shape = await plan(cluster, JSON.stringify({ Reservations: [] }));
    expect(shape.code).toBe(2);
    expect(shape.err).toContain('CapacityReservations');
  });

  it('says without the flag that reserved capacity is not planned, and how to plan it', async () => {
    const { code, out, err } = await plan(cluster, undefined);
    expect(code).toBe(0);
    expect(err).toBe('');
    expect(out).not.toContain('reserved ');
    expect(out.replace(/\s+/g, ' ')).toContain(
      'Reserved capacity is not planned: EC2NodeClass default selects capacity reservations, whose free ' +
        'instance counts podlift cannot know offline. To plan them, pass --capacity-reservations <file> with ' +
        'the output of aws ec2 describe-capacity-reservations --output json.',
    );
    const plain = await plan(yamlStream(POOL, nodeClass(), ...FOUR_NODES), undefined);
    expect(plain.out).not.toContain('Reserved capacity');
  });
});

describe('podlift plan --capacity-reservations on a live cluster', () => {
  let server: FakeKubeApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("fills the reservations the live EC2NodeClass's terms select, whose status has no free counts", async () => {
    server = await startFakeKubeApiServer();
    const { store } = server;
    store.seed('nodepools.karpenter.sh', POOL);
    store.seed('ec2nodeclasses.karpenter.k8s.aws', {
      ...reservingNodeClass([{ tags: { team: 'ml' } }]),
      // As Karpenter's status controller writes it: which reservations, not how many are free.
      status: {
        capacityReservations: [
          {
            id: RESERVATION,
            instanceType: 'm5.xlarge',
            availabilityZone: 'us-east-1a',
            ownerID: '111122223333',
            instanceMatchCriteria: 'targeted',
            reservationType: 'default',
            state: 'active',
          },
        ],
      },
    });
    for (const p of FOUR_NODES)
      store.seed('pods', { ...p, metadata: { ...(p.metadata as object), namespace: 'default' } });
    const kubeconfig = server.kubeConfig().exportConfig();
    const io = Object.assign(new FakeIO({ '/k': kubeconfig, 'cr.json': file(described()) }), {
      kubeconfigEnv: '/k',
    });
    expect(await run(['plan', '--capacity-reservations', 'cr.json', '-o', 'json'], io)).toBe(0);
    const json = PlanJsonSchema.parse(JSON.parse(io.out));
    expect(json.nodeClaims.map((c) => c.capacityType).sort()).toEqual([
      'on-demand',
      'reserved',
      'reserved',
      'reserved',
    ]);
  });
});
