import {
  GetParameterCommand,
  GetParametersByPathCommand,
  GetParametersCommand,
  ParameterNotFound,
  PutParameterCommand,
  paginateGetParametersByPath,
  SSMClient,
} from '@aws-sdk/client-ssm';
import { describe, expect, it } from 'vitest';
import { attachFake } from '../../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../../sim/fakes/aws/client-config';
import { FakeSsm } from '../../../../sim/fakes/aws/fake-ssm';
import { VirtualTime } from '../../../../sim/virtual-time';

const AL2023 = '/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id';
const BOTTLEROCKET = '/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id';

function ssmWorld() {
  const fake = new FakeSsm({
    clock: new VirtualTime(),
    parameters: [
      { name: AL2023, value: 'ami-0a1b2c3d4e5f60001', dataType: 'aws:ec2:image' },
      { name: BOTTLEROCKET, value: 'ami-0a1b2c3d4e5f60002', dataType: 'aws:ec2:image' },
      ...Array.from({ length: 23 }, (_, i) => ({
        name: `/podlift/nodepools/pool-${String(i).padStart(2, '0')}`,
        value: `${i}`,
      })),
      { name: '/podlift/nodepools/nested/deeper', value: 'x' },
    ],
  });
  const client = new SSMClient(clientConfig);
  attachFake(client, fake);
  return { fake, client };
}

describe('FakeSsm', () => {
  it('returns seeded public AMI parameters and ParameterNotFound for missing ones', async () => {
    const { client } = ssmWorld();
    const out = await client.send(new GetParameterCommand({ Name: AL2023 }));
    expect(out.Parameter).toMatchObject({
      Name: AL2023,
      Value: 'ami-0a1b2c3d4e5f60001',
      Type: 'String',
      Version: 1,
      DataType: 'aws:ec2:image',
      ARN: `arn:aws:ssm:us-east-1::parameter${AL2023}`,
    });
    const error = await client
      .send(new GetParameterCommand({ Name: '/aws/service/eks/nope' }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ParameterNotFound);
    expect(error).toMatchObject({ name: 'ParameterNotFound', $fault: 'client' });
  });

  it('splits GetParameters into found and invalid names and refuses more than 10 names', async () => {
    const { client } = ssmWorld();
    const out = await client.send(new GetParametersCommand({ Names: [AL2023, '/missing', BOTTLEROCKET] }));
    expect(out.Parameters?.map((p) => p.Value)).toEqual(['ami-0a1b2c3d4e5f60001', 'ami-0a1b2c3d4e5f60002']);
    expect(out.InvalidParameters).toEqual(['/missing']);
    await expect(
      client.send(new GetParametersCommand({ Names: Array.from({ length: 11 }, (_, i) => `/p${i}`) })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('pages GetParametersByPath at most 10 at a time, direct children unless Recursive', async () => {
    const { client } = ssmWorld();
    const pages = [];
    for await (const page of paginateGetParametersByPath({ client }, { Path: '/podlift/nodepools' }))
      pages.push(page);
    expect(pages.map((p) => p.Parameters?.length)).toEqual([10, 10, 3]);

    const recursive = [];
    for await (const page of paginateGetParametersByPath(
      { client, pageSize: 7 },
      { Path: '/podlift', Recursive: true },
    )) {
      recursive.push(...(page.Parameters ?? []));
    }
    expect(recursive).toHaveLength(24);
    expect(recursive.at(-1)?.Name).toBe('/podlift/nodepools/pool-22');
    await expect(
      client.send(new GetParametersByPathCommand({ Path: '/podlift', MaxResults: 50 })),
    ).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await expect(
      client.send(new GetParametersByPathCommand({ Path: '/podlift', NextToken: 'bogus' })),
    ).rejects.toMatchObject({
      name: 'InvalidNextToken',
    });
  });

  it('creates, refuses to overwrite without Overwrite, versions and hides SecureString values without decryption', async () => {
    const { client } = ssmWorld();
    expect(
      await client.send(
        new PutParameterCommand({ Name: '/podlift/secret', Value: 's3cr3t', Type: 'SecureString' }),
      ),
    ).toMatchObject({
      Version: 1,
      Tier: 'Standard',
    });
    await expect(
      client.send(new PutParameterCommand({ Name: '/podlift/secret', Value: 'other', Type: 'SecureString' })),
    ).rejects.toMatchObject({ name: 'ParameterAlreadyExists' });
    await client.send(
      new PutParameterCommand({ Name: '/podlift/secret', Value: 'rotated', Overwrite: true }),
    );

    const hidden = await client.send(new GetParameterCommand({ Name: '/podlift/secret' }));
    expect(hidden.Parameter?.Value).not.toContain('rotated');
    const shown = await client.send(
      new GetParameterCommand({ Name: '/podlift/secret', WithDecryption: true }),
    );
    expect(shown.Parameter).toMatchObject({ Value: 'rotated', Version: 2, Type: 'SecureString' });
    const first = await client.send(
      new GetParameterCommand({ Name: '/podlift/secret:1', WithDecryption: true }),
    );
    expect(first.Parameter).toMatchObject({ Value: 's3cr3t', Selector: ':1' });
    await expect(
      client.send(new PutParameterCommand({ Name: '/aws/service/mine', Value: 'x', Type: 'String' })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('throttles with ThrottlingException', async () => {
    const { client, fake } = ssmWorld();
    fake.throttle('GetParameter');
    await expect(client.send(new GetParameterCommand({ Name: AL2023 }))).rejects.toMatchObject({
      name: 'ThrottlingException',
    });
    await expect(client.send(new GetParameterCommand({ Name: AL2023 }))).resolves.toHaveProperty('Parameter');
  });
});
