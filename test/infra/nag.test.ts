import { aws_iam as iam, Stack, aws_sqs as sqs } from 'aws-cdk-lib';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTestApps, synthStack, testApp } from './test-app';

afterAll(removeTestApps);

describe('cdk-nag AwsSolutions', () => {
  it('finds nothing unacknowledged in the EKS stack', () => {
    expect(() => synthStack({}, { nag: true })).not.toThrow();
  });

  it('finds nothing unacknowledged in kOps mode with a customer key and IRSA', () => {
    expect(() =>
      synthStack(
        {
          clusterAccess: {
            kind: 'kops',
            parameterKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/abc',
            watcherOidcProvider: { providerArn: 'arn:aws:iam::123456789012:oidc-provider/o', issuer: 'o' },
          },
        },
        { nag: true },
      ),
    ).not.toThrow();
  });

  it('is really checking: an unacknowledged queue without DLQ or TLS policy fails synth', () => {
    const app = testApp();
    expect(() => synthStack({}, { nag: true, app: withExtraQueue(app) })).toThrow(/AwsSolutions-SQS3/);
  });

  it("accepts a node role the caller brings (its managed policies are the caller's to justify)", () => {
    const app = testApp();
    expect(() =>
      synthStack(
        {
          nodeRole: iam.Role.fromRoleArn(
            new Stack(app, 'Roles'),
            'Existing',
            'arn:aws:iam::123456789012:role/my-nodes',
            {
              mutable: false,
            },
          ),
        },
        { nag: true, app },
      ),
    ).not.toThrow();
  });
});

/** Adds a second stack with a bare queue to `app`. */
function withExtraQueue(app: ReturnType<typeof testApp>) {
  new sqs.Queue(new Stack(app, 'Extra'), 'Bare');
  return app;
}
