import { EKSClient } from '@aws-sdk/client-eks';
import type { AwsCredentialIdentity } from '@smithy/types';
import { attachFake } from '../../../sim/fakes/aws/attach';
import { clientConfig } from '../../../sim/fakes/aws/client-config';
import { type EksClusterSeed, FakeEks } from '../../../sim/fakes/aws/fake-eks';
import { VirtualTime } from '../../../sim/virtual-time';

/** Lambda-shaped credentials: a session token and an expiry hours away. */
export const lambdaCredentials: AwsCredentialIdentity = {
  accessKeyId: 'ASIAPODLIFTTESTKEY01',
  secretAccessKey: 'podlift/test+secret/key0123456789abcdefgh',
  sessionToken: 'IQoJb3JpZ2luX2VjEPODLIFT/session+token==',
  expiration: new Date(Date.UTC(2026, 0, 1, 6)),
};

/** A real EKSClient answered by a FakeEks, and the clock both run on. */
export function eksWorld(clusters: readonly EksClusterSeed[] = [{ name: 'prod' }]) {
  const clock = new VirtualTime();
  const fake = new FakeEks({ clock, clusters });
  const eks = new EKSClient(clientConfig);
  attachFake(eks, fake);
  return { clock, fake, eks };
}

/** What a token decodes to: the presigned URL and its query. */
export function decodeEksToken(token: string): { url: URL; query: Record<string, string> } {
  const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  return { url, query: Object.fromEntries(url.searchParams) };
}
