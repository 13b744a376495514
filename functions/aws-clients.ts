import { EC2Client } from '@aws-sdk/client-ec2';
import { EKSClient } from '@aws-sdk/client-eks';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { IAMClient } from '@aws-sdk/client-iam';
import { PricingClient } from '@aws-sdk/client-pricing';
import { SSMClient } from '@aws-sdk/client-ssm';
import type { AwsCredentialIdentity, AwsCredentialIdentityProvider } from '@smithy/types';
import { pricingEndpointRegion } from '../shared/aws/catalog/on-demand-prices';
import { sdkClientConfig } from '../shared/aws/sdk-client-config';

/** The AWS SDK clients the functions use, one of each per Lambda container. */
export interface AwsClients {
  readonly ec2: EC2Client;
  readonly ssm: SSMClient;
  readonly iam: IAMClient;
  readonly pricing: PricingClient;
  readonly eks: EKSClient;
  readonly eventBridge: EventBridgeClient;
}

/**
 * The SDK clients for `region`, each with the SDK's own retries off (podlift's retry knows the
 * invocation's deadline). Pricing talks to the endpoint that serves the region's partition. The
 * simulator builds the same clients and attaches its fakes to them.
 */
export function awsClients(
  region: string,
  credentials?: AwsCredentialIdentity | AwsCredentialIdentityProvider,
): AwsClients {
  const config = sdkClientConfig({ region, ...(credentials ? { credentials } : {}) });
  return {
    ec2: new EC2Client(config),
    ssm: new SSMClient(config),
    iam: new IAMClient(config),
    pricing: new PricingClient({ ...config, region: pricingEndpointRegion(region) }),
    eks: new EKSClient(config),
    eventBridge: new EventBridgeClient(config),
  };
}
