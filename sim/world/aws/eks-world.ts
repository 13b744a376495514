import { EKSClient } from '@aws-sdk/client-eks';
import type { AwsCredentialIdentity } from '@smithy/types';
import { withFake } from '../../fakes/aws/attach';
import { clientConfig } from '../../fakes/aws/client-config';
import { type EksClusterSeed, FakeEks } from '../../fakes/aws/fake-eks';
import { VirtualTime } from '../../virtual-time';

/** Lambda-shaped credentials: a session token and an expiry hours away. */
export const lambdaCredentials: AwsCredentialIdentity = {
  accessKeyId: 'ASIAPODLIFTTESTKEY01',
  secretAccessKey: 'podlift/test+secret/key0123456789abcdefgh',
  sessionToken: 'IQoJb3JpZ2luX2VjEPODLIFT/session+token==',
  expiration: new Date(Date.UTC(2026, 0, 1, 6)),
};

/** What {@link eksWorld} builds. */
export interface EksWorld {
  readonly clock: VirtualTime;
  readonly fake: FakeEks;
  /** A real EKSClient answered by `fake`. */
  readonly eks: EKSClient;
}

/** A real EKSClient answered by a FakeEks holding `clusters`, and the clock both run on. */
export function eksWorld(clusters: readonly EksClusterSeed[] = [{ name: 'prod' }]): EksWorld {
  const clock = new VirtualTime();
  const fake = new FakeEks({ clock, clusters });
  return { clock, fake, eks: withFake(new EKSClient(clientConfig), fake) };
}
