import {
  CreateLaunchTemplateCommand,
  DeleteLaunchTemplateCommand,
  DescribeLaunchTemplatesCommand,
  type DescribeLaunchTemplatesCommandOutput,
  type EC2Client,
  type LaunchTemplate,
} from '@aws-sdk/client-ec2';
import type { InstanceType } from '../../core/catalog/instance-type';
import { resolveInstanceTypes } from '../../core/catalog/instance-type-resolution';
import type { ClusterInfo } from '../../core/model/cluster-info';
import type { EC2NodeClass } from '../../core/model/ec2nodeclass';
import { CloudError, NotFoundError } from '../../core/model/errors';
import { LABEL_INSTANCE_TENANCY, LABEL_INSTANCE_TYPE } from '../../core/model/labels';
import { type NodeSelectorRequirement, Requirements } from '../../core/model/requirements';
import type { InstanceCatalogPort, LaunchRequest } from '../../core/ports/cloud';
import type { LaunchTemplateProvider, LaunchTemplateRef } from '../../core/ports/launch-templates';
import type { Clock } from '../../core/ports/time';
import { awsErrorCode, cloudErrorFrom } from '../aws-error';
import { type RetryPolicy, withRetry } from '../retry';
import { bootstrapOptions } from '../userdata/bootstrap-options';
import { userDataBase64 } from '../userdata/user-data';
import { groupByAmi } from './ami-groups';
import { ExpiringCache } from './expiring-cache';
import { launchCapacityType } from './launch-capacity-type';
import {
  type LaunchTemplateContent,
  launchPartition,
  launchTemplateContent,
  launchTenancy,
  TAG_MANAGED_BY_CLUSTER,
} from './launch-template-data';
import { launchTemplateName, launchTemplatePrefix } from './launch-template-name';

/** Options of {@link Ec2LaunchTemplateProvider}. */
export interface Ec2LaunchTemplateProviderOptions {
  readonly ec2: EC2Client;
  /** Instance types, to send each NodeClaim option to the AMI that serves it and learn its max pods. */
  readonly catalog: InstanceCatalogPort;
  readonly clock: Clock;
  /** How throttled and failed EC2 calls are retried within the invocation's remaining time. */
  readonly retry: RetryPolicy;
  /**
   * How long a template found or created is used without asking EC2 again.
   * @default 300_000 (5 minutes)
   */
  readonly cacheTtlMs?: number;
  /**
   * `deleteUnreferenced` leaves templates younger than this alone: a provisioner that has just
   * ensured one may be about to launch with it.
   * @default 600_000 (10 minutes)
   */
  readonly deleteGraceMs?: number;
  /**
   * The ReservedCapacity gate: on, templates of on-demand and spot launches opt out of
   * capacity reservations (Karpenter's launchtemplate/types.go LaunchModeTargeted).
   * @default true (Karpenter's default)
   */
  readonly reservedCapacity?: boolean;
}

const ALREADY_EXISTS = 'InvalidLaunchTemplateName.AlreadyExistsException';
const NOT_FOUND: ReadonlySet<string> = new Set([
  'InvalidLaunchTemplateName.NotFoundException',
  'InvalidLaunchTemplateId.NotFound',
]);
/** DescribeLaunchTemplates' largest page. */
const PAGE_SIZE = 200;

/** One launch template an `ensure` call needs, before it is known to exist. */
interface PlannedTemplate {
  readonly content: LaunchTemplateContent;
  readonly imageId: string;
  readonly amiRequirements: readonly NodeSelectorRequirement[];
  readonly instanceTypes: string[];
}

/**
 * Launch templates on EC2 (Karpenter's launchtemplate.Provider): one per AMI and max-pods
 * group of a NodeClaim's options, named `podlift/<cluster>/<hash of its content>`, so equal
 * content is shared by every NodeClaim and process, and a change makes a new template instead
 * of editing one in use. A template is looked up (cache, then DescribeLaunchTemplates) before
 * it is created, and a concurrent creator winning the race counts as success. Every EC2 call
 * (describe, create, list, delete) is retried on throttling and 5xx with the injected
 * {@link RetryPolicy}, like the rest of podlift's EC2 calls.
 */
export class Ec2LaunchTemplateProvider implements LaunchTemplateProvider {
  private readonly ec2: EC2Client;
  private readonly catalog: InstanceCatalogPort;
  private readonly clock: Clock;
  private readonly retry: RetryPolicy;
  private readonly deleteGraceMs: number;
  /** LaunchModeTargeted: the ReservedCapacity gate. */
  private readonly targeted: boolean;
  /** Name → id of templates known to exist. */
  private readonly known: ExpiringCache<{ readonly id: string | undefined }>;
  /** Lookups or creations in flight, so concurrent ensures of one name make one call. */
  private readonly pending = new Map<string, Promise<string | undefined>>();
  private readonly typesByResolution = new WeakMap<
    readonly InstanceType[],
    ReadonlyMap<string, InstanceType>
  >();

  constructor(options: Ec2LaunchTemplateProviderOptions) {
    this.ec2 = options.ec2;
    this.catalog = options.catalog;
    this.clock = options.clock;
    this.retry = options.retry;
    this.targeted = options.reservedCapacity ?? true;
    this.deleteGraceMs = options.deleteGraceMs ?? 600_000;
    this.known = new ExpiringCache(options.clock, options.cacheTtlMs ?? 300_000);
  }

  /**
   * Ensures the templates the NodeClaim needs exist and returns them in the order of its
   * cheapest option. Only options of the capacity type the launch buys
   * ({@link launchCapacityType}) are served, since the templates' user data labels the node
   * with it. Each template's requirements are its AMI's plus `node.kubernetes.io/instance-type
   * In` the types it serves.
   *
   * @throws NotFoundError when the EC2NodeClass resolved no AMI, security group or instance
   *   profile, or no AMI serves any option
   * @throws ValidationError when the EC2NodeClass's userData or block devices are invalid, or
   *   the user data is over EC2's 16 KB
   * @throws CloudError when EC2 fails, after retrying throttling and 5xx within the policy
   */
  async ensure(request: LaunchRequest, cluster: ClusterInfo): Promise<readonly LaunchTemplateRef[]> {
    const { nodeClaim, nodeClass, nodePool, resolved } = request;
    const doing = `ensuring launch templates for NodeClaim ${nodeClaim.name} (EC2NodeClass ${nodeClass.name})`;
    if (resolved.amis.length === 0) {
      throw new NotFoundError(
        `EC2NodeClass/${nodeClass.name} AMIs`,
        `${doing}: the EC2NodeClass resolved no AMI: check spec.amiSelectorTerms`,
      );
    }
    const capacityType = launchCapacityType(request.options);
    const names = [
      ...new Set(request.options.filter((o) => o.capacityType === capacityType).map((o) => o.name)),
    ];
    const known = await this.instanceTypes(nodeClass);
    const groups = groupByAmi(
      resolved.amis,
      names.flatMap((n) => known.get(n) ?? []),
    );
    if (groups.length === 0) {
      throw new NotFoundError(
        `EC2NodeClass/${nodeClass.name} AMIs`,
        `${doing}: no AMI of the EC2NodeClass (${resolved.amis.map((a) => a.id).join(', ')}) serves any of the ${capacityType} options (${names.slice(0, 5).join(', ')}${names.length > 5 ? ', ...' : ''})`,
      );
    }
    const tenancyRequirement = Requirements.from(nodeClaim.spec.requirements).get(LABEL_INSTANCE_TENANCY);
    const tenancy = launchTenancy((t) => tenancyRequirement?.has(t) ?? true);
    const partition = launchPartition(resolved.placementGroup, nodeClaim.spec.requirements);
    const planned = new Map<string, PlannedTemplate>();
    for (const group of groups) {
      const userData = userDataBase64(
        nodeClass.amiFamily,
        bootstrapOptions({
          cluster,
          nodeClass,
          nodeClaim,
          nodePoolName: nodePool.name,
          capacityType,
          maxPods: group.maxPods,
        }),
      );
      const content = launchTemplateContent({
        cluster: cluster.name,
        nodeClass,
        nodePoolName: nodePool.name,
        resolved,
        imageId: group.ami.id,
        capacityType,
        tenancy,
        ...(partition !== undefined ? { partition } : {}),
        ...(request.capacityReservation === undefined
          ? {}
          : { capacityReservation: request.capacityReservation }),
        targeted: this.targeted,
        ...(userData !== undefined ? { userData } : {}),
      });
      const name = launchTemplateName(cluster.name, content);
      const existing = planned.get(name);
      if (existing !== undefined) existing.instanceTypes.push(...group.instanceTypes);
      else {
        planned.set(name, {
          content,
          imageId: group.ami.id,
          amiRequirements: group.ami.requirements,
          instanceTypes: [...group.instanceTypes],
        });
      }
    }
    return Promise.all(
      [...planned].map(async ([name, template]): Promise<LaunchTemplateRef> => {
        const id = await this.ensureOne(name, template.content, nodeClaim.name);
        return {
          launchTemplateName: name,
          ...(id !== undefined ? { launchTemplateId: id } : {}),
          imageId: template.imageId,
          requirements: [
            ...template.amiRequirements,
            { key: LABEL_INSTANCE_TYPE, operator: 'In', values: template.instanceTypes },
          ],
        };
      }),
    );
  }

  /**
   * Forgets a template, so the next `ensure` asks EC2 again. Call it when EC2 says a template
   * this provider returned does not exist (another process deleted it).
   */
  invalidate(launchTemplateName: string): void {
    this.known.delete(launchTemplateName);
  }

  /**
   * Deletes the cluster's podlift templates (tagged `karpenter.k8s.aws/cluster=<cluster>` and
   * named `podlift/<cluster>/…`) that are not in `inUse` (by name or id) and older than the grace period.
   * Templates of other clusters, and Karpenter's own `karpenter.k8s.aws/…` templates, are never
   * touched. Templates already gone count as deleted.
   *
   * @returns the names deleted
   * @throws CloudError when listing fails, or after trying every deletion when some failed
   */
  async deleteUnreferenced(cluster: string, inUse: Iterable<string>): Promise<readonly string[]> {
    const prefix = launchTemplatePrefix(cluster);
    const keep = new Set(inUse);
    const cutoff = this.clock.now() - this.deleteGraceMs;
    const unused: LaunchTemplate[] = [];
    let nextToken: string | undefined;
    do {
      let page: DescribeLaunchTemplatesCommandOutput;
      const listing = `listing launch templates of cluster ${cluster}`;
      const token = nextToken;
      try {
        page = await withRetry(
          listing,
          () =>
            this.ec2.send(
              new DescribeLaunchTemplatesCommand({
                Filters: [{ Name: `tag:${TAG_MANAGED_BY_CLUSTER}`, Values: [cluster] }],
                MaxResults: PAGE_SIZE,
                ...(token !== undefined ? { NextToken: token } : {}),
              }),
            ),
          this.retry,
        );
      } catch (e) {
        throw cloudErrorFrom(listing, e);
      }
      for (const template of page.LaunchTemplates ?? []) {
        const name = template.LaunchTemplateName ?? '';
        const created = template.CreateTime?.getTime() ?? Number.NEGATIVE_INFINITY;
        const used = keep.has(name) || keep.has(template.LaunchTemplateId ?? '');
        if (name.startsWith(prefix) && !used && created <= cutoff) unused.push(template);
      }
      nextToken = page.NextToken;
    } while (nextToken !== undefined);

    const deleted: string[] = [];
    const failures: CloudError[] = [];
    for (const template of unused) {
      const name = template.LaunchTemplateName ?? '';
      const deleting = `deleting launch template ${name}`;
      this.known.delete(name);
      try {
        await withRetry(
          deleting,
          () =>
            this.ec2.send(new DeleteLaunchTemplateCommand({ LaunchTemplateId: template.LaunchTemplateId })),
          this.retry,
        );
        deleted.push(name);
      } catch (e) {
        const code = awsErrorCode(e);
        if (code !== undefined && NOT_FOUND.has(code)) deleted.push(name);
        else failures.push(cloudErrorFrom(deleting, e));
      }
    }
    if (failures.length > 0) {
      throw new CloudError(
        `deleting unused launch templates of cluster ${cluster}: ${failures.length} of ${unused.length} failed: ${failures
          .slice(0, 3)
          .map((f) => f.message)
          .join('; ')}`,
        failures[0].code,
        failures.every((f) => f.retryable),
        { cause: failures[0] },
      );
    }
    return deleted;
  }

  /** The catalog's instance types under the EC2NodeClass's settings, by name. */
  private async instanceTypes(nodeClass: EC2NodeClass): Promise<ReadonlyMap<string, InstanceType>> {
    const resolved = resolveInstanceTypes(await this.catalog.catalog(), nodeClass);
    let byName = this.typesByResolution.get(resolved);
    if (byName === undefined) {
      byName = new Map(resolved.map((it) => [it.name, it]));
      this.typesByResolution.set(resolved, byName);
    }
    return byName;
  }

  private ensureOne(
    name: string,
    content: LaunchTemplateContent,
    nodeClaim: string,
  ): Promise<string | undefined> {
    const known = this.known.get(name);
    if (known !== undefined) return Promise.resolve(known.id);
    let pending = this.pending.get(name);
    if (pending === undefined) {
      pending = this.findOrCreate(name, content, nodeClaim).finally(() => this.pending.delete(name));
      this.pending.set(name, pending);
    }
    return pending;
  }

  private async findOrCreate(
    name: string,
    content: LaunchTemplateContent,
    nodeClaim: string,
  ): Promise<string | undefined> {
    const doing = `creating launch template ${name} for NodeClaim ${nodeClaim}`;
    let template = await this.describe(name, doing);
    if (template === undefined) {
      try {
        // A create retried after a lost answer may find its first attempt's template: that is
        // AlreadyExists, handled below like a race with another provisioner.
        const created = await withRetry(
          doing,
          () =>
            this.ec2.send(
              new CreateLaunchTemplateCommand({
                LaunchTemplateName: name,
                LaunchTemplateData: content.data,
                TagSpecifications: [
                  {
                    ResourceType: 'launch-template',
                    Tags: Object.entries(content.tags).map(([Key, Value]) => ({ Key, Value })),
                  },
                ],
              }),
            ),
          this.retry,
        );
        template = created.LaunchTemplate ?? { LaunchTemplateName: name };
      } catch (e) {
        if (awsErrorCode(e) !== ALREADY_EXISTS) throw cloudErrorFrom(doing, e);
        // Another provisioner created it between our describe and create: same name, same content.
        template = await this.describe(name, doing);
        if (template === undefined) {
          throw new CloudError(
            `${doing}: EC2 says it exists but does not describe it`,
            ALREADY_EXISTS,
            true,
            {
              cause: e,
            },
          );
        }
      }
    }
    this.known.set(name, { id: template.LaunchTemplateId });
    return template.LaunchTemplateId;
  }

  private async describe(name: string, doing: string): Promise<LaunchTemplate | undefined> {
    try {
      const out = await withRetry(
        doing,
        () => this.ec2.send(new DescribeLaunchTemplatesCommand({ LaunchTemplateNames: [name] })),
        this.retry,
      );
      return out.LaunchTemplates?.[0];
    } catch (e) {
      const code = awsErrorCode(e);
      if (code !== undefined && NOT_FOUND.has(code)) return undefined;
      throw cloudErrorFrom(doing, e);
    }
  }
}
