import type { InstanceProfile, Role, Tag } from '@aws-sdk/client-iam';
import { requestTagContext, resourceTagContext } from './iam-policy/authorization';
import type { AuthorizationRequest } from './iam-policy/evaluate';

/** What IAM's authorization reads of the fake's state. */
export interface IamAuthorizationView {
  readonly accountId: string;
  profile(name: string): InstanceProfile | undefined;
  role(name: string): Role | undefined;
}

interface ProfileInput {
  readonly InstanceProfileName?: string;
  readonly RoleName?: string;
  readonly Path?: string;
  readonly PathPrefix?: string;
  readonly Tags?: readonly Tag[];
}

/**
 * The requests IAM authorizes for each call ("Actions, resources, and condition keys for AWS
 * Identity and Access Management"): instance-profile actions on the profile's ARN
 * (`arn:aws:iam::<account>:instance-profile<path><name>`) with its tags as aws:ResourceTag;
 * CreateInstanceProfile with its tags as aws:RequestTag, and with tags also
 * iam:TagInstanceProfile on the new profile (its tags both requested and, once created, its
 * own); AddRoleToInstanceProfile also iam:PassRole of the role (to EC2, the service instance
 * profiles serve); ListInstanceProfiles on the profiles under its path prefix; GetRole on the
 * role. A profile or role the fake does not have is not authorized here: the operation answers
 * NoSuchEntity.
 */
export function iamAuthorizationRequests(
  view: IamAuthorizationView,
  operation: string,
  input: object,
): AuthorizationRequest[] {
  const request = input as ProfileInput;
  const profileArn = (path: string, name: string) =>
    `arn:aws:iam::${view.accountId}:instance-profile${path}${name}`;
  const existing = () => {
    const profile = view.profile(request.InstanceProfileName ?? '');
    return profile === undefined
      ? undefined
      : { resource: profileArn(profile.Path ?? '/', profile.InstanceProfileName ?? ''), tags: profile.Tags };
  };
  const onProfile = (extra: Record<string, string | string[]> = {}): AuthorizationRequest[] => {
    const profile = existing();
    return profile === undefined
      ? []
      : [
          {
            action: `iam:${operation}`,
            resource: profile.resource,
            context: { ...resourceTagContext(profile.tags), ...extra },
          },
        ];
  };
  switch (operation) {
    case 'CreateInstanceProfile': {
      const resource = profileArn(request.Path ?? '/', request.InstanceProfileName ?? '');
      const tags = request.Tags ?? [];
      return [
        { action: 'iam:CreateInstanceProfile', resource, context: requestTagContext(tags) },
        ...(tags.length === 0
          ? []
          : [
              {
                action: 'iam:TagInstanceProfile',
                resource,
                context: { ...resourceTagContext(tags), ...requestTagContext(tags) },
              },
            ]),
      ];
    }
    case 'TagInstanceProfile':
      return onProfile(requestTagContext(request.Tags ?? []));
    case 'AddRoleToInstanceProfile': {
      const role = view.role(request.RoleName ?? '');
      return [
        ...onProfile(),
        ...(role?.Arn === undefined
          ? []
          : [
              {
                action: 'iam:PassRole',
                resource: role.Arn,
                context: { 'iam:PassedToService': 'ec2.amazonaws.com' },
              },
            ]),
      ];
    }
    case 'GetInstanceProfile':
      return [
        {
          action: 'iam:GetInstanceProfile',
          resource: existing()?.resource ?? profileArn('/', request.InstanceProfileName ?? ''),
          context: {},
        },
      ];
    case 'RemoveRoleFromInstanceProfile':
    case 'DeleteInstanceProfile':
      return onProfile();
    case 'ListInstanceProfiles':
      return [
        {
          action: 'iam:ListInstanceProfiles',
          resource: profileArn(request.PathPrefix ?? '/', '*'),
          context: {},
        },
      ];
    case 'GetRole':
      return [
        {
          action: 'iam:GetRole',
          resource:
            view.role(request.RoleName ?? '')?.Arn ??
            `arn:aws:iam::${view.accountId}:role/${request.RoleName}`,
          context: {},
        },
      ];
    default:
      return [{ action: `iam:${operation}`, resource: '*', context: {} }];
  }
}
