import type {
  CreateFleetCommandInput,
  CreateLaunchTemplateCommandInput,
  CreateTagsCommandInput,
  DeleteLaunchTemplateCommandInput,
  Instance,
  RequestLaunchTemplateData,
  Tag,
  TerminateInstancesCommandInput,
} from '@aws-sdk/client-ec2';
import { requestTagContext, resourceTagContext } from '../iam-policy/authorization';
import type { AuthorizationRequest } from '../iam-policy/evaluate';
import type { LaunchTemplateKey, LaunchTemplateRecord } from './launch-templates';
import { tagsFor } from './tags';

/** What EC2's authorization reads of the fake's state. */
export interface Ec2AuthorizationView {
  readonly region: string;
  readonly accountId: string;
  launchTemplate(key: LaunchTemplateKey): LaunchTemplateRecord | undefined;
  instance(instanceId: string): Instance | undefined;
  /** Tags of any taggable resource by id (CreateTags after creation). */
  tagsOf(resourceId: string): readonly Tag[] | undefined;
  /** The role ARN of an instance profile, by name or ARN, when IAM is modelled. */
  instanceProfileRole(profile: { Name?: string; Arn?: string }): string | undefined;
}

/**
 * The requests EC2 authorizes for each call, as the EC2 API reference's "Actions, resources, and
 * condition keys for Amazon EC2" and "Grant permission to tag resources during creation" describe
 * them:
 *
 * - Describe* on `*` (no resource-level permissions);
 * - CreateFleet: both `ec2:CreateFleet` and `ec2:RunInstances` on every resource the launch uses
 *   (launch template with its resource tags, subnets, security groups, image, placement group)
 *   and creates (fleet, instance, volume, network interface, and for spot the spot instance
 *   request, each `<type>/*` with the tags it is created with as aws:RequestTag and aws:TagKeys,
 *   the request's TagSpecifications merged over the template's), `ec2:CreateTags` on each
 *   created resource that gets tags with `ec2:CreateAction=CreateFleet`, and `iam:PassRole` of
 *   the template's instance profile role to ec2.amazonaws.com;
 * - CreateLaunchTemplate: on `launch-template/*` with its request tags, and CreateTags with
 *   `ec2:CreateAction=CreateLaunchTemplate`;
 * - TerminateInstances, DeleteLaunchTemplate and CreateTags on each named resource with its
 *   aws:ResourceTag keys.
 *
 * A resource the fake does not have is not authorized here: the operation answers NotFound.
 */
export function ec2AuthorizationRequests(
  view: Ec2AuthorizationView,
  operation: string,
  input: object,
): AuthorizationRequest[] {
  const arn = (resource: string, account = view.accountId) =>
    `arn:aws:ec2:${view.region}:${account}:${resource}`;
  switch (operation) {
    case 'CreateFleet':
      return createFleetRequests(view, arn, input as CreateFleetCommandInput);
    case 'CreateLaunchTemplate': {
      const tags = tagsFor((input as CreateLaunchTemplateCommandInput).TagSpecifications, 'launch-template');
      return creationRequests(['ec2:CreateLaunchTemplate'], 'CreateLaunchTemplate', [
        { resource: arn('launch-template/*'), tags },
      ]);
    }
    case 'DeleteLaunchTemplate': {
      const record = view.launchTemplate(input as DeleteLaunchTemplateCommandInput);
      if (record === undefined) return [];
      return [
        {
          action: 'ec2:DeleteLaunchTemplate',
          resource: arn(`launch-template/${record.template.LaunchTemplateId}`),
          context: resourceTagContext(record.template.Tags),
        },
      ];
    }
    case 'TerminateInstances':
      return ((input as TerminateInstancesCommandInput).InstanceIds ?? []).flatMap((id) => {
        const instance = view.instance(id);
        return instance === undefined
          ? []
          : [
              {
                action: 'ec2:TerminateInstances',
                resource: arn(`instance/${id}`),
                context: resourceTagContext(instance.Tags),
              },
            ];
      });
    case 'CreateTags': {
      const { Resources = [], Tags = [] } = input as CreateTagsCommandInput;
      return Resources.flatMap((id) => {
        const tags = view.tagsOf(id);
        return tags === undefined
          ? []
          : [
              {
                action: 'ec2:CreateTags',
                resource: arn(`${resourceTypeOf(id)}/${id}`),
                context: { ...resourceTagContext(tags), ...requestTagContext(Tags) },
              },
            ];
      });
    }
    default:
      return [{ action: `ec2:${operation}`, resource: '*', context: {} }];
  }
}

type Arn = (resource: string, account?: string) => string;

function createFleetRequests(view: Ec2AuthorizationView, arn: Arn, input: CreateFleetCommandInput) {
  const used: { resource: string; context: Record<string, string> }[] = [];
  const created: { resource: string; tags: Tag[] }[] = [];
  const requestTags = (type: string, template?: RequestLaunchTemplateData) => {
    const byKey = new Map<string, Tag>();
    for (const tag of tagsFor(template?.TagSpecifications, type)) byKey.set(tag.Key ?? '', tag);
    for (const tag of tagsFor(input.TagSpecifications, type)) byKey.set(tag.Key ?? '', tag);
    return [...byKey.values()];
  };
  let passRoles: string[] = [];
  const spot = input.TargetCapacitySpecification?.DefaultTargetCapacityType === 'spot';
  for (const config of input.LaunchTemplateConfigs ?? []) {
    const record = view.launchTemplate(config.LaunchTemplateSpecification ?? {});
    // A template that does not exist is refused by the operation itself (NotFound).
    if (record === undefined) continue;
    const data = record.data;
    used.push({
      resource: arn(`launch-template/${record.template.LaunchTemplateId}`),
      context: resourceTagContext(record.template.Tags),
    });
    for (const group of data.SecurityGroupIds ?? [])
      used.push({ resource: arn(`security-group/${group}`), context: {} });
    // A launch into a capacity reservation uses it (Karpenter's policy grants CreateFleet on
    // capacity-reservation/*, its CloudFormation AllowScopedEC2InstanceAccessActions).
    const reservation =
      data.CapacityReservationSpecification?.CapacityReservationTarget?.CapacityReservationId;
    if (reservation !== undefined)
      used.push({ resource: arn(`capacity-reservation/${reservation}`), context: {} });
    if (data.Placement?.GroupName !== undefined)
      used.push({ resource: arn(`placement-group/${data.Placement.GroupName}`), context: {} });
    const images = new Set([data.ImageId, ...(config.Overrides ?? []).map((o) => o.ImageId)]);
    for (const image of images)
      if (image !== undefined) used.push({ resource: arn(`image/${image}`, ''), context: {} });
    for (const override of config.Overrides ?? []) {
      if (override.SubnetId !== undefined)
        used.push({ resource: arn(`subnet/${override.SubnetId}`), context: {} });
    }
    const role = data.IamInstanceProfile && view.instanceProfileRole(data.IamInstanceProfile);
    if (role !== undefined && role !== '') passRoles = [...new Set([...passRoles, role])];
    for (const type of [
      'instance',
      'volume',
      'network-interface',
      ...(spot ? ['spot-instances-request'] : []),
    ])
      created.push({ resource: arn(`${type}/*`), tags: requestTags(type, data) });
  }
  created.push({ resource: arn('fleet/*'), tags: requestTags('fleet') });
  const unique = [...new Map(created.map((c) => [`${c.resource}${JSON.stringify(c.tags)}`, c])).values()];
  const actions = ['ec2:CreateFleet', 'ec2:RunInstances'];
  return [
    ...actions.flatMap((action) => used.map(({ resource, context }) => ({ action, resource, context }))),
    ...creationRequests(actions, 'CreateFleet', unique),
    ...passRoles.map((role) => ({
      action: 'iam:PassRole',
      resource: role,
      context: { 'iam:PassedToService': 'ec2.amazonaws.com' },
    })),
  ];
}

/**
 * Creating resources with tags: each of `actions` on each new resource with its request tags,
 * and ec2:CreateTags on those that get tags, with `ec2:CreateAction`.
 */
function creationRequests(
  actions: readonly string[],
  createAction: string,
  created: readonly { readonly resource: string; readonly tags: readonly Tag[] }[],
): AuthorizationRequest[] {
  return [
    ...actions.flatMap((action) =>
      created.map(({ resource, tags }) => ({ action, resource, context: requestTagContext(tags) })),
    ),
    ...created
      .filter(({ tags }) => tags.length > 0)
      .map(({ resource, tags }) => ({
        action: 'ec2:CreateTags',
        resource,
        context: { ...requestTagContext(tags), 'ec2:CreateAction': createAction },
      })),
  ];
}

/** The ARN resource type of an EC2 id, from its prefix. */
function resourceTypeOf(id: string): string {
  const prefix = id.slice(0, id.indexOf('-'));
  const types: Record<string, string> = {
    i: 'instance',
    lt: 'launch-template',
    subnet: 'subnet',
    sg: 'security-group',
    ami: 'image',
    vol: 'volume',
    eni: 'network-interface',
    fleet: 'fleet',
    sir: 'spot-instances-request',
  };
  return types[prefix] ?? prefix;
}
