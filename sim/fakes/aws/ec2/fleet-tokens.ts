import type { CreateFleetCommandOutput } from '@aws-sdk/client-ec2';
import type { OperationOutput } from '../fake-service';
import type { Ec2Context } from './context';

/**
 * How long EC2 keeps a ClientToken after its last instance ended: "A client token is valid for
 * at least 24 hours after the termination of the instance" (Amazon EC2 developer guide,
 * "Ensuring idempotency in Amazon EC2 API requests", RunInstances idempotency). The fake keeps
 * it exactly that long, and 24 hours after the request for a fleet that launched nothing.
 */
export const CLIENT_TOKEN_RETENTION_MS = 24 * 60 * 60 * 1000;

interface RememberedFleet {
  readonly fingerprint: string;
  readonly output: OperationOutput<CreateFleetCommandOutput>;
  readonly requestedAt: number;
  readonly instanceIds: readonly string[];
}

/**
 * The ClientTokens of instant fleets, failed ones included: EC2 records the fleet whatever it
 * launched, so the same token with the same request returns the first answer (even one with
 * nothing but errors), and with another request fails with IdempotentParameterMismatch.
 */
export class FleetClientTokens {
  private readonly fleets = new Map<string, RememberedFleet>();

  /**
   * @param endedAt when an instance ended (epoch ms), undefined while it is not terminated
   */
  constructor(
    private readonly context: Ec2Context,
    private readonly endedAt: (instanceId: string) => number | undefined,
  ) {}

  /**
   * The answer to repeat for `token`, or undefined when the token is new or forgotten.
   * @throws IdempotentParameterMismatch when the token came with another request
   */
  recall(token: string, fingerprint: string): OperationOutput<CreateFleetCommandOutput> | undefined {
    const fleet = this.fleets.get(token);
    if (fleet === undefined) return undefined;
    if (this.expired(fleet)) {
      this.fleets.delete(token);
      return undefined;
    }
    if (fleet.fingerprint !== fingerprint) {
      throw this.context.fail(
        'IdempotentParameterMismatch',
        `The client token '${token}' was used before with different request parameters`,
      );
    }
    return structuredClone(fleet.output);
  }

  /** Records the answer given to `token`. */
  remember(token: string, fingerprint: string, output: OperationOutput<CreateFleetCommandOutput>): void {
    this.fleets.set(token, {
      fingerprint,
      output: structuredClone(output),
      requestedAt: this.context.clock.now(),
      instanceIds: (output.Instances ?? []).flatMap((i) => i.InstanceIds ?? []),
    });
  }

  private expired(fleet: RememberedFleet): boolean {
    let lastEnded = fleet.requestedAt;
    for (const id of fleet.instanceIds) {
      const ended = this.endedAt(id);
      if (ended === undefined) return false;
      lastEnded = Math.max(lastEnded, ended);
    }
    return this.context.clock.now() >= lastEnded + CLIENT_TOKEN_RETENTION_MS;
  }
}
