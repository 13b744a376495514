import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { PodliftProps } from '../../infra/props';
import { wildcardMatch } from '../../sim/fakes/aws/iam-policy/evaluate';
import { KARPENTER_CONTROLLER_POLICY, type NormalStatement } from './fixtures/karpenter-controller-policy';
import { allows, compareStatements, type Grant, grantsOf, short } from './karpenter-policy-comparison';
import { statementsOfRole } from './policy-text';
import { removeTestApps, synthStack } from './test-app';

afterAll(removeTestApps);

/**
 * What podlift grants that Karpenter's controller policy has no statement for, each with why.
 * Anything else a role holds must fall within one of Karpenter's statements, with at least its
 * conditions.
 */
const PODLIFT_ONLY: readonly { readonly action: string; readonly resource: string; readonly why: string }[] =
  [
    {
      action: 'ssm:GetParameters',
      resource: 'arn:<Partition>:ssm:<Region>::parameter/aws/service/*',
      why: "the public AMI parameters of Karpenter's AllowSSMReadActions, read ten at a time (shared/aws/nodeclass/amis.ts)",
    },
    {
      action: 'ssm:GetParametersByPath',
      resource: 'arn:<Partition>:ssm:<Region>:<AccountId>:parameter/podlift/demo/*',
      why: "NodePools and EC2NodeClasses kept in the cluster's own SSM parameters",
    },
    {
      action: 'ssm:GetParameter',
      resource: 'arn:<Partition>:ssm:<Region>:<AccountId>:parameter/podlift/demo/cluster',
      why: "kOps: the API server's address and token, instead of eks:DescribeCluster",
    },
    {
      action: 'kms:Decrypt',
      resource: 'arn:aws:kms:us-east-1:123456789012:key/abc',
      why: 'kOps: the key of that parameter, only through SSM (kms:ViaService)',
    },
    {
      action: 'events:PutEvents',
      resource: '<PodliftRoutingBus.Arn>',
      why: "hints on the cluster's bus (Karpenter has no bus)",
    },
    {
      action: 'sqs:*',
      resource: '<PodliftRoutingInterruptionQueue.Arn>',
      why: "Lambda's SQS event source polls with the function's role: GetQueueAttributes and ChangeMessageVisibility besides Karpenter's three",
    },
    { action: 'logs:*', resource: '<PodliftFunctions*Logs.Arn>', why: "each function's own log group" },
  ];

const ROLES = {
  functions: 'PodliftFunctionsRole',
  termination: 'PodliftTerminationRole',
  watcher: 'PodliftIdentitiesWatcherRole',
};

let eksGrants: Grant[] | undefined;

/** The EKS stack's grants, synthesized once for the file. */
function eksStackGrants(): Grant[] {
  eksGrants ??= grantsOfStack();
  return eksGrants;
}

function grantsOfStack(props: Partial<PodliftProps> = {}): Grant[] {
  const { template } = synthStack(props);
  return Object.entries(ROLES).flatMap(([role, prefix]) =>
    grantsOf(role, statementsOfRole(template, prefix) as unknown as NormalStatement[]),
  );
}

const podliftOnly = (grant: Grant) =>
  PODLIFT_ONLY.find(
    (p) => wildcardMatch(p.action, grant.action, true) && wildcardMatch(p.resource, grant.resource, false),
  );

/** Every grant no Karpenter statement allows and no PODLIFT_ONLY entry explains, as text. */
function looser(grants: readonly Grant[]): string[] {
  return grants
    .filter((g) => !KARPENTER_CONTROLLER_POLICY.some((k) => allows(k, g)) && podliftOnly(g) === undefined)
    .map(
      (g) =>
        `${g.role}: ${g.statement.Sid ?? '(no Sid)'} ${g.action} on ${g.resource} ${JSON.stringify(g.statement.Condition ?? {})}`,
    );
}

const name = (g: Grant) => `${g.role}: ${g.statement.Sid ?? '(CDK grant)'}`;

/** The side-by-side table docs/deploy.md shows between its karpenter-iam markers. */
function table(grants: readonly Grant[]): string {
  const rows = compareStatements(KARPENTER_CONTROLLER_POLICY, grants).map(
    (r) =>
      `| ${r.karpenter} | ${r.podlift.length === 0 ? '—' : r.podlift.join(', ')} | ${r.leftOut.length === 0 ? '—' : r.leftOut.join(', ')} |`,
  );
  const only = PODLIFT_ONLY.map((p) => {
    const holders = [
      ...new Set(
        grants
          .filter((g) => podliftOnly(g) === p && !KARPENTER_CONTROLLER_POLICY.some((k) => allows(k, g)))
          .map(name),
      ),
    ];
    return `| — | ${holders.join(', ') || 'functions, termination (kOps)'}: \`${p.action}\` on \`${short(p.resource)}\` | podlift only: ${p.why} |`;
  });
  return [
    "| Karpenter's statement | podlift's role: statement within it | left out by podlift (tighter) |",
    '| --- | --- | --- |',
    ...rows,
    ...only,
  ].join('\n');
}

describe("IAM beside Karpenter's controller policy", () => {
  it('grants nothing, in any role, that Karpenter does not grant with at least its conditions, but what podlift alone needs (EKS)', () => {
    expect(looser(eksStackGrants())).toEqual([]);
  });

  it('grants nothing looser in kOps mode with a customer key and IRSA either', () => {
    const grants = grantsOfStack({
      clusterAccess: {
        kind: 'kops',
        parameterKeyArn: 'arn:aws:kms:us-east-1:123456789012:key/abc',
        watcherOidcProvider: { providerArn: 'arn:aws:iam::123456789012:oidc-provider/o', issuer: 'o' },
      },
    });
    expect(looser(grants)).toEqual([]);
  });

  it('catches a widening: a condition dropped, a wider resource, an action Karpenter never grants', () => {
    const [launch] = eksStackGrants().filter(
      (g) =>
        g.statement.Sid === 'AllowScopedEC2InstanceActionsWithTags' && g.resource.endsWith(':instance/*'),
    );
    if (launch === undefined) throw new Error('no launch grant');
    const { StringLike: _, ...withoutNodePool } = launch.statement.Condition ?? {};
    const widened: Grant[] = [
      { ...launch, statement: { ...launch.statement, Sid: 'DroppedCondition', Condition: withoutNodePool } },
      {
        ...launch,
        statement: { ...launch.statement, Sid: 'WiderResource' },
        resource: 'arn:<Partition>:ec2:*:*:instance/*',
      },
      {
        ...launch,
        statement: { ...launch.statement, Sid: 'OtherAction' },
        action: 'ec2:ModifyInstanceAttribute',
      },
    ];
    expect(looser(widened).map((line) => line.split(' ')[1])).toEqual([
      'DroppedCondition',
      'WiderResource',
      'OtherAction',
    ]);
  });

  it("matches docs/deploy.md's side-by-side table", () => {
    const page = readFileSync(new URL('../../docs/deploy.md', import.meta.url), 'utf8');
    const shown = /<!-- karpenter-iam:begin -->\n([\s\S]*?)\n<!-- karpenter-iam:end -->/.exec(page)?.[1];
    expect(shown).toBe(table(eksStackGrants()));
  });
});
