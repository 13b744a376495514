import { DescribeInstancesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import type { HttpRequest, HttpResponse, RequestHandler } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { sdkClientConfig } from '../../shared/aws/sdk-client-config';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' };

/** An HTTP handler that refuses every request, as an unreachable endpoint does, and counts them. */
function refusingHandler() {
  const requests: HttpRequest[] = [];
  const handler: RequestHandler<HttpRequest, HttpResponse> = {
    handle: async (request) => {
      requests.push(request);
      throw Object.assign(new Error(`connect ECONNREFUSED ${request.hostname}:443`), {
        code: 'ECONNREFUSED',
      });
    },
  };
  return { handler, requests };
}

describe('sdkClientConfig', () => {
  it('turns the SDK retries off and passes region and credentials through', () => {
    expect(sdkClientConfig({ region: 'eu-west-1', credentials })).toStrictEqual({
      region: 'eu-west-1',
      maxAttempts: 1,
      credentials,
    });
    expect(sdkClientConfig({ region: 'eu-west-1' })).toStrictEqual({ region: 'eu-west-1', maxAttempts: 1 });
  });

  it('makes a real EC2 client send a refused request once, leaving the retries to podlift', async () => {
    const { handler, requests } = refusingHandler();
    const ec2 = new EC2Client({
      ...sdkClientConfig({ region: 'eu-west-1', credentials }),
      requestHandler: handler,
    });

    await expect(ec2.send(new DescribeInstancesCommand({}))).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    expect(requests).toHaveLength(1);
    expect(requests[0]!.hostname).toBe('ec2.eu-west-1.amazonaws.com');
  });

  it('makes a real EventBridge client send a refused request once too', async () => {
    const { handler, requests } = refusingHandler();
    const events = new EventBridgeClient({
      ...sdkClientConfig({ region: 'eu-west-1', credentials }),
      requestHandler: handler,
    });

    await expect(
      events.send(
        new PutEventsCommand({ Entries: [{ Source: 'podlift.test', DetailType: 'x', Detail: '{}' }] }),
      ),
    ).rejects.toMatchObject({ code: 'ECONNREFUSED' });

    expect(requests).toHaveLength(1);
  });
});
