import { CreateFleetCommand, type CreateFleetCommandOutput, type EC2Client } from '@aws-sdk/client-ec2';
import type { InstanceType } from '../../core/catalog/instance-type';
import type { UnavailableOfferings } from '../../core/catalog/unavailable-offerings';
import type { ClusterInfo } from '../../core/model/cluster-info';
import { CloudError, InsufficientCapacityError } from '../../core/model/errors';
import { type LaunchedInstance, providerID } from '../../core/model/nodeclaim';
import type { InstanceLauncherPort, LaunchRequest } from '../../core/ports/cloud';
import type { LaunchTemplateProvider } from '../../core/ports/launch-templates';
import { awsErrorCode, cloudErrorFrom } from '../aws-error';
import { type RetryPolicy, withRetry } from '../retry';
import { fleetClientToken } from './client-token';
import { Ec2Instances } from './ec2-instances';
import { type FleetPlan, fleetCapacityType, planFleet } from './fleet-plan';
import { createFleetInput } from './fleet-request';
import { readFleetOutput } from './fleet-result';
import { launchTags } from './launch-tags';

/** CreateFleet's answers for a launch template that does not exist (any more). */
const LAUNCH_TEMPLATE_NOT_FOUND: ReadonlySet<string> = new Set([
  'InvalidLaunchTemplateName.NotFoundException',
  'InvalidLaunchTemplateId.NotFound',
  'InvalidLaunchTemplateId.VersionNotFound',
]);

/** What {@link Ec2InstanceLauncher} needs. Cheap to build: make one per invocation. */
export interface Ec2InstanceLauncherOptions {
  readonly ec2: EC2Client;
  readonly cluster: ClusterInfo;
  readonly launchTemplates: LaunchTemplateProvider;
  /** The region's instance types by name (offerings and labels; allocatable is not used here). */
  readonly instanceTypes: ReadonlyMap<string, InstanceType>;
  /** Offerings EC2 refused recently: skipped when planning, and marked after each refusal. */
  readonly unavailableOfferings: UnavailableOfferings;
  /** Backoff and the invocation's deadline for throttled calls. */
  readonly retry: RetryPolicy;
  /** DescribeInstances page size, for tests. @default 1000 */
  readonly pageSize?: number;
}

/**
 * Launches NodeClaims with CreateFleet (`instant`, one instance, Karpenter's overrides,
 * allocation strategies and tags) and terminates and describes the cluster's instances.
 *
 * Idempotent per NodeClaim: the ClientToken is derived from the NodeClaim's name and uid, so a
 * repeated identical request returns EC2's first answer. When the repeat differs (fewer
 * available offerings, a subnet with more free addresses since), EC2 answers
 * IdempotentParameterMismatch and the instance is found by its `karpenter.sh/nodeclaim` tag.
 * A NodeClaim whose launch was refused must be replaced by a new one (Karpenter deletes it):
 * its token would only ever return the same refusal.
 */
export class Ec2InstanceLauncher implements InstanceLauncherPort {
  /** Describe, list and terminate, for the garbage collector and the termination loop. */
  readonly instances: Ec2Instances;

  constructor(private readonly options: Ec2InstanceLauncherOptions) {
    this.instances = new Ec2Instances({
      ec2: options.ec2,
      cluster: options.cluster.name,
      retry: options.retry,
      ...(options.pageSize === undefined ? {} : { pageSize: options.pageSize }),
    });
  }

  /**
   * Launches one instance for the NodeClaim and marks every offering EC2 refused for capacity
   * unavailable (also when another offering launched).
   *
   * @throws InsufficientCapacityError when nothing launched and every refusal was for capacity,
   *   or no offering was left to ask for; `refused` lists each offering and its code.
   * @throws CloudError when EC2 failed otherwise (bad template, AMI or parameter; throttling
   *   beyond the deadline), naming the NodeClaim and instance type.
   */
  async launch(request: LaunchRequest): Promise<LaunchedInstance> {
    const { nodeClaim } = request;
    const fleet = {
      nodeClaim,
      options: request.options,
      instanceTypes: this.options.instanceTypes,
      subnets: request.resolved.subnets,
      unavailable: this.options.unavailableOfferings.keys(),
    };
    // The templates' user data labels the node with its capacity type, so they are made for the
    // capacity type this fleet will buy (which may differ from the plan's when spot ran out).
    const capacityType = fleetCapacityType(fleet);
    const templates = await this.options.launchTemplates.ensure(
      { ...request, options: request.options.map((o) => ({ ...o, capacityType })) },
      this.options.cluster,
    );
    const plan = planFleet({ ...fleet, launchTemplates: templates });
    if (plan.configs.length === 0) throw new InsufficientCapacityError(nodeClaim.name, plan.skipped);

    const what = launching(nodeClaim.name, plan);
    const input = createFleetInput({
      plan,
      clientToken: fleetClientToken(nodeClaim),
      tags: launchTags({
        cluster: this.options.cluster.name,
        nodePool: request.nodePool.name,
        nodeClaim: nodeClaim.name,
        nodeClass: request.nodeClass.name,
        nodeClassTags: request.nodeClass.tags,
      }),
      ...(request.nodeClass.context === undefined ? {} : { context: request.nodeClass.context }),
    });

    let output: CreateFleetCommandOutput;
    try {
      output = await withRetry(
        what,
        () => this.options.ec2.send(new CreateFleetCommand(input)),
        this.options.retry,
      );
    } catch (error) {
      if (awsErrorCode(error) === 'IdempotentParameterMismatch')
        return this.earlierLaunch(nodeClaim.name, what, error);
      // Retryable failures already came back from withRetry as CloudErrors.
      throw cloudErrorFrom(what, error);
    }

    const outcome = readFleetOutput(output, plan);
    for (const r of outcome.refused) {
      if (r.capacityType === 'reserved' || r.instanceType === '' || r.zone === '') continue;
      this.options.unavailableOfferings.mark(r.instanceType, r.zone, r.capacityType, r.code);
    }
    const launched = outcome.launched;
    if (launched !== undefined) {
      return {
        instanceId: launched.instanceId,
        providerID: providerID(launched.zone, launched.instanceId),
        instanceType: launched.instanceType,
        zone: launched.zone,
        capacityType: launched.capacityType,
        ...(launched.imageId === undefined ? {} : { imageID: launched.imageId }),
      };
    }
    const [failure, ...more] = outcome.failed;
    if (failure !== undefined && outcome.failed.some((f) => LAUNCH_TEMPLATE_NOT_FOUND.has(f.code))) {
      // Someone deleted a template this process believed in (another provisioner's clean-up):
      // forget them so the next attempt creates them again, and say the attempt may be retried.
      for (const t of templates) this.options.launchTemplates.invalidate(t.launchTemplateName);
      throw new CloudError(
        `launching NodeClaim ${nodeClaim.name} (${failure.instanceType}, ${failure.zone}): ${failure.code}: launch template missing; it will be recreated on the next attempt`,
        failure.code,
        true,
      );
    }
    if (failure === undefined) {
      throw new InsufficientCapacityError(nodeClaim.name, [...outcome.refused, ...plan.skipped]);
    }
    throw new CloudError(
      `launching NodeClaim ${nodeClaim.name} (${failure.instanceType}, ${failure.zone}): ${failure.code}${
        failure.message === undefined ? '' : `: ${failure.message}`
      }${more.length + outcome.refused.length > 0 ? ` (and ${more.length + outcome.refused.length} more refused offerings)` : ''}`,
      failure.code,
      false,
    );
  }

  /** Terminates; instances already gone count as terminated. */
  terminate(instanceIds: readonly string[]): Promise<void> {
    return this.instances.terminate(instanceIds);
  }

  /** After IdempotentParameterMismatch: the instance an earlier call with this token launched. */
  private async earlierLaunch(nodeClaim: string, what: string, cause: unknown): Promise<LaunchedInstance> {
    const found = await this.instances.findByNodeClaim(nodeClaim);
    if (found === undefined) {
      throw new CloudError(
        `${what}: IdempotentParameterMismatch: an earlier launch of this NodeClaim used other parameters and no instance of it exists; replace the NodeClaim`,
        'IdempotentParameterMismatch',
        false,
        { cause },
      );
    }
    return {
      instanceId: found.id,
      providerID: found.providerID,
      instanceType: found.instanceType,
      zone: found.zone,
      capacityType: found.capacityType,
      ...(found.imageId === undefined ? {} : { imageID: found.imageId }),
      ...(found.privateDnsName === undefined ? {} : { privateDnsName: found.privateDnsName }),
    };
  }
}

/** `launching NodeClaim default-x7k2 (m5.large, us-east-1a, +11 offerings)`: the cheapest override first. */
function launching(nodeClaim: string, plan: FleetPlan): string {
  const overrides = plan.configs.flatMap((c) => c.overrides);
  const first = overrides.reduce((a, b) => (b.price < a.price ? b : a));
  const more = overrides.length - 1;
  return `launching NodeClaim ${nodeClaim} (${first.instanceType}, ${first.zone}${more > 0 ? `, +${more} offerings` : ''})`;
}
