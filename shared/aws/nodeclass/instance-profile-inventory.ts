import {
  DeleteInstanceProfileCommand,
  GetInstanceProfileCommand,
  type IAMClient,
  type InstanceProfile,
  ListInstanceProfilesCommand,
  RemoveRoleFromInstanceProfileCommand,
} from '@aws-sdk/client-iam';
import type {
  InstanceProfileInventoryPort,
  InstanceProfileRecord,
  ProfileDeletion,
} from '../../core/ports/cloud';
import { awsErrorCode, cloudErrorFrom } from '../aws-error';
import { type RetryPolicy, withRetry } from '../retry';
import { instanceProfilePath } from './instance-profile-name';

/** Options of {@link IamInstanceProfiles}. */
export interface IamInstanceProfilesOptions {
  readonly iam: IAMClient;
  readonly cluster: string;
  readonly region: string;
  readonly retry: RetryPolicy;
}

/** ListInstanceProfiles' largest page. */
const PAGE_SIZE = 1000;

/**
 * The cluster's instance profiles in IAM, for garbage collection (aws/karpenter-provider-aws
 * pkg/providers/instanceprofile `ListProfiles` and `Delete`): listed by the IAM path podlift
 * (like Karpenter) creates them under, deleted only when their tags say they are this cluster's.
 * Throttling and 5xx are retried with the injected policy.
 */
export class IamInstanceProfiles implements InstanceProfileInventoryPort {
  constructor(private readonly options: IamInstanceProfilesOptions) {}

  async listClusterProfiles(): Promise<InstanceProfileRecord[]> {
    const { iam, cluster, region } = this.options;
    const prefix = instanceProfilePath(region, cluster, undefined);
    const doing = `listing the instance profiles of cluster ${cluster} under ${prefix}`;
    const out: InstanceProfileRecord[] = [];
    let marker: string | undefined;
    do {
      const from = marker;
      const page = await this.call(doing, () =>
        iam.send(
          new ListInstanceProfilesCommand({
            PathPrefix: prefix,
            MaxItems: PAGE_SIZE,
            ...(from === undefined ? {} : { Marker: from }),
          }),
        ),
      );
      for (const profile of page.InstanceProfiles ?? []) out.push(toRecord(profile));
      marker = page.IsTruncated ? page.Marker : undefined;
      if (marker !== undefined && marker === from)
        throw cloudErrorFrom(doing, new Error('the same Marker came back twice'));
    } while (marker !== undefined);
    return out;
  }

  async delete(name: string): Promise<ProfileDeletion> {
    const { iam, cluster } = this.options;
    const doing = (what: string) => `${what} instance profile ${name} of cluster ${cluster}`;
    const profile = await this.call(doing('reading'), () =>
      iam.send(new GetInstanceProfileCommand({ InstanceProfileName: name })),
    ).then(
      (out) => out.InstanceProfile,
      (error: unknown) => {
        if (isNoSuchEntity(error)) return undefined;
        throw error;
      },
    );
    if (profile === undefined) return 'gone';
    const owned = profile.Tags?.some(
      (t) => t.Key === `kubernetes.io/cluster/${cluster}` && t.Value === 'owned',
    );
    if (!owned) return 'not-ours';
    try {
      for (const role of profile.Roles ?? []) {
        await this.call(doing(`removing role ${role.RoleName} from`), () =>
          iam.send(
            new RemoveRoleFromInstanceProfileCommand({ InstanceProfileName: name, RoleName: role.RoleName }),
          ),
        );
      }
      await this.call(doing('deleting'), () =>
        iam.send(new DeleteInstanceProfileCommand({ InstanceProfileName: name })),
      );
      return 'deleted';
    } catch (error) {
      if (isNoSuchEntity(error)) return 'gone';
      throw error;
    }
  }

  /** One IAM call, retried on throttling and 5xx; other errors become CloudErrors naming `doing`. */
  private async call<T>(doing: string, send: () => Promise<T>): Promise<T> {
    try {
      return await withRetry(doing, send, this.options.retry);
    } catch (error) {
      if (isNoSuchEntity(error)) throw error;
      throw cloudErrorFrom(doing, error);
    }
  }
}

function toRecord(profile: InstanceProfile): InstanceProfileRecord {
  const role = profile.Roles?.[0]?.RoleName;
  return {
    name: profile.InstanceProfileName ?? '',
    ...(profile.CreateDate === undefined ? {} : { createdAt: profile.CreateDate.getTime() }),
    ...(role === undefined ? {} : { role }),
  };
}

/** IAM's wire code and the SDK's class name alike. */
function isNoSuchEntity(error: unknown): boolean {
  const code = awsErrorCode(error);
  return code === 'NoSuchEntity' || code === 'NoSuchEntityException';
}
