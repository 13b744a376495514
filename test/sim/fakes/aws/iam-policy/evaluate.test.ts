import { describe, expect, it } from 'vitest';
import {
  type AuthorizationRequest,
  evaluate,
  type PolicyStatement,
} from '../../../../../sim/fakes/aws/iam-policy/evaluate';

const policy = (...statements: PolicyStatement[]) => [{ Statement: statements }];
const request = (overrides: Partial<AuthorizationRequest> = {}): AuthorizationRequest => ({
  action: 'ec2:CreateFleet',
  resource: 'arn:aws:ec2:us-east-1:123456789012:fleet/*',
  context: {},
  ...overrides,
});

/**
 * Karpenter's AllowScopedResourceCreationTagging (aws/karpenter-provider-aws
 * website/.../cloudformation.yaml, KarpenterControllerPolicy) for cluster demo.
 */
const CREATION_TAGGING: PolicyStatement = {
  Sid: 'AllowScopedResourceCreationTagging',
  Effect: 'Allow',
  Resource: [
    'arn:aws:ec2:us-east-1:*:fleet/*',
    'arn:aws:ec2:us-east-1:*:instance/*',
    'arn:aws:ec2:us-east-1:*:spot-instances-request/*',
  ],
  Action: 'ec2:CreateTags',
  Condition: {
    StringEquals: {
      'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
      'aws:RequestTag/eks:eks-cluster-name': 'demo',
      'ec2:CreateAction': ['RunInstances', 'CreateFleet', 'CreateLaunchTemplate'],
    },
    StringLike: { 'aws:RequestTag/karpenter.sh/nodepool': '*' },
  },
};

/** Karpenter's AllowScopedResourceTagging: tagging running instances with three keys only. */
const RESOURCE_TAGGING: PolicyStatement = {
  Sid: 'AllowScopedResourceTagging',
  Effect: 'Allow',
  Resource: 'arn:aws:ec2:us-east-1:*:instance/*',
  Action: 'ec2:CreateTags',
  Condition: {
    StringEquals: { 'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned' },
    StringLike: { 'aws:ResourceTag/karpenter.sh/nodepool': '*' },
    StringEqualsIfExists: { 'aws:RequestTag/eks:eks-cluster-name': 'demo' },
    'ForAllValues:StringEquals': {
      'aws:TagKeys': ['eks:eks-cluster-name', 'karpenter.sh/nodeclaim', 'Name'],
    },
  },
};

const spotRequestTagging = (context: Record<string, string | string[]>) =>
  request({
    action: 'ec2:CreateTags',
    resource: 'arn:aws:ec2:us-east-1:123456789012:spot-instances-request/*',
    context,
  });
const clusterTags = {
  'aws:RequestTag/kubernetes.io/cluster/demo': 'owned',
  'aws:RequestTag/eks:eks-cluster-name': 'demo',
  'aws:RequestTag/karpenter.sh/nodepool': 'default',
  'ec2:CreateAction': 'CreateFleet',
};

describe('evaluate (identity policies)', () => {
  it('allows a request a statement matches by action and resource, naming the statement', () => {
    expect(evaluate(policy(CREATION_TAGGING), spotRequestTagging(clusterTags))).toEqual({
      effect: 'Allow',
      sid: 'AllowScopedResourceCreationTagging',
    });
  });

  it('denies implicitly what no statement allows: another action, resource or region', () => {
    const allowed = policy(CREATION_TAGGING);
    expect(evaluate(allowed, { ...spotRequestTagging(clusterTags), action: 'ec2:DeleteTags' })).toEqual({
      effect: 'ImplicitDeny',
    });
    expect(
      evaluate(allowed, {
        ...spotRequestTagging(clusterTags),
        resource: 'arn:aws:ec2:us-east-1:123456789012:volume/*',
      }).effect,
    ).toBe('ImplicitDeny');
    expect(
      evaluate(allowed, {
        ...spotRequestTagging(clusterTags),
        resource: 'arn:aws:ec2:us-west-2:123456789012:spot-instances-request/*',
      }).effect,
    ).toBe('ImplicitDeny');
  });

  it('requires every key of every operator (AND), any listed value of a key (OR)', () => {
    const allowed = policy(CREATION_TAGGING);
    expect(
      evaluate(allowed, spotRequestTagging({ ...clusterTags, 'ec2:CreateAction': 'RunInstances' })).effect,
    ).toBe('Allow');
    expect(
      evaluate(allowed, spotRequestTagging({ ...clusterTags, 'ec2:CreateAction': 'CreateTags' })).effect,
    ).toBe('ImplicitDeny');
    expect(
      evaluate(
        allowed,
        spotRequestTagging({ ...clusterTags, 'aws:RequestTag/eks:eks-cluster-name': 'other' }),
      ).effect,
    ).toBe('ImplicitDeny');
    const { 'aws:RequestTag/karpenter.sh/nodepool': _, ...noNodePool } = clusterTags;
    // StringLike "*" holds for any value, but not for a key the request does not carry.
    expect(evaluate(allowed, spotRequestTagging(noNodePool)).effect).toBe('ImplicitDeny');
  });

  it('matches actions case-insensitively and resources case-sensitively, with * and ? wildcards', () => {
    const statement: PolicyStatement = {
      Effect: 'Allow',
      Action: 'EC2:describe*',
      Resource: 'arn:aws:ec2:us-east-1:*:instance/i-????',
    };
    expect(
      evaluate(
        policy(statement),
        request({ action: 'ec2:DescribeInstances', resource: 'arn:aws:ec2:us-east-1:1:instance/i-1234' }),
      ).effect,
    ).toBe('Allow');
    expect(
      evaluate(
        policy(statement),
        request({ action: 'ec2:DescribeInstances', resource: 'arn:aws:ec2:us-east-1:1:instance/i-12345' }),
      ).effect,
    ).toBe('ImplicitDeny');
    expect(
      evaluate(
        policy(statement),
        request({ action: 'ec2:DescribeInstances', resource: 'arn:aws:ec2:us-east-1:1:INSTANCE/i-1234' }),
      ).effect,
    ).toBe('ImplicitDeny');
    expect(
      evaluate(
        policy(statement),
        request({ action: 'ec2:RunInstances', resource: 'arn:aws:ec2:us-east-1:1:instance/i-1234' }),
      ).effect,
    ).toBe('ImplicitDeny');
  });

  it('lets an explicit Deny win over any Allow, whatever the order', () => {
    const deny: PolicyStatement = {
      Sid: 'NoSpot',
      Effect: 'Deny',
      Action: '*',
      Resource: '*:spot-instances-request/*',
    };
    const wildcard = { ...deny, Resource: 'arn:aws:ec2:*:*:spot-instances-request/*' };
    expect(evaluate(policy(CREATION_TAGGING, wildcard), spotRequestTagging(clusterTags))).toEqual({
      effect: 'ExplicitDeny',
      sid: 'NoSpot',
    });
    expect(evaluate(policy(wildcard, CREATION_TAGGING), spotRequestTagging(clusterTags)).effect).toBe(
      'ExplicitDeny',
    );
  });

  it('reads NotAction and NotResource as everything but the listed', () => {
    const statement: PolicyStatement = {
      Effect: 'Allow',
      NotAction: 'iam:*',
      NotResource: 'arn:aws:ec2:*:*:fleet/*',
    };
    expect(
      evaluate(policy(statement), request({ resource: 'arn:aws:ec2:us-east-1:1:instance/*' })).effect,
    ).toBe('Allow');
    expect(evaluate(policy(statement), request()).effect).toBe('ImplicitDeny');
    expect(evaluate(policy(statement), request({ action: 'iam:PassRole', resource: 'x' })).effect).toBe(
      'ImplicitDeny',
    );
  });

  it('holds ForAllValues when every requested tag key is listed (vacuously with none), and IfExists when the key is absent', () => {
    const instance = 'arn:aws:ec2:us-east-1:123456789012:instance/i-1';
    const owned = {
      'aws:ResourceTag/kubernetes.io/cluster/demo': 'owned',
      'aws:ResourceTag/karpenter.sh/nodepool': 'default',
    };
    const tagging = (context: Record<string, string | string[]>) =>
      evaluate(policy(RESOURCE_TAGGING), request({ action: 'ec2:CreateTags', resource: instance, context }))
        .effect;
    expect(tagging({ ...owned, 'aws:TagKeys': ['karpenter.sh/nodeclaim', 'Name'] })).toBe('Allow');
    expect(tagging({ ...owned, 'aws:TagKeys': ['Name', 'karpenter.sh/nodepool'] })).toBe('ImplicitDeny');
    expect(tagging(owned)).toBe('Allow');
    expect(
      tagging({
        ...owned,
        'aws:RequestTag/eks:eks-cluster-name': 'other',
        'aws:TagKeys': ['eks:eks-cluster-name'],
      }),
    ).toBe('ImplicitDeny');
    expect(tagging({ 'aws:ResourceTag/karpenter.sh/nodepool': 'default', 'aws:TagKeys': ['Name'] })).toBe(
      'ImplicitDeny',
    );
  });

  it('holds ForAnyValue when one requested value is listed, never when the key is absent', () => {
    const statement: PolicyStatement = {
      Effect: 'Allow',
      Action: '*',
      Resource: '*',
      Condition: { 'ForAnyValue:StringLike': { 'aws:TagKeys': ['karpenter.sh/*'] } },
    };
    expect(
      evaluate(policy(statement), request({ context: { 'aws:TagKeys': ['Name', 'karpenter.sh/nodepool'] } }))
        .effect,
    ).toBe('Allow');
    expect(evaluate(policy(statement), request({ context: { 'aws:TagKeys': ['Name'] } })).effect).toBe(
      'ImplicitDeny',
    );
    expect(evaluate(policy(statement), request()).effect).toBe('ImplicitDeny');
  });

  it('holds a negated operator for an absent key, Null on presence, Bool and numbers by value, keys in any case', () => {
    const allow = (Condition: PolicyStatement['Condition'], context: Record<string, string | string[]>) =>
      evaluate(policy({ Effect: 'Allow', Action: '*', Resource: '*', Condition }), request({ context }))
        .effect;
    expect(allow({ StringNotEquals: { 'aws:RequestTag/team': 'ml' } }, {})).toBe('Allow');
    expect(allow({ StringNotEquals: { 'aws:RequestTag/team': 'ml' } }, { 'aws:RequestTag/team': 'ml' })).toBe(
      'ImplicitDeny',
    );
    expect(allow({ Null: { 'aws:RequestTag/team': 'true' } }, {})).toBe('Allow');
    expect(allow({ Null: { 'aws:RequestTag/team': 'false' } }, {})).toBe('ImplicitDeny');
    expect(allow({ Bool: { 'aws:SecureTransport': false } }, { 'aws:SecureTransport': 'false' })).toBe(
      'Allow',
    );
    expect(allow({ NumericLessThan: { 'ec2:VolumeSize': '100' } }, { 'ec2:VolumeSize': '50' })).toBe('Allow');
    expect(allow({ NumericLessThan: { 'ec2:VolumeSize': '100' } }, { 'ec2:VolumeSize': '150' })).toBe(
      'ImplicitDeny',
    );
    expect(
      allow({ StringEquals: { 'AWS:RequestedRegion': 'us-east-1' } }, { 'aws:requestedregion': 'us-east-1' }),
    ).toBe('Allow');
    expect(
      allow(
        { ArnLike: { 'aws:SourceArn': 'arn:aws:eks:*:1:cluster/demo' } },
        { 'aws:SourceArn': 'arn:aws:eks:us-east-1:1:cluster/demo' },
      ),
    ).toBe('Allow');
  });

  it('refuses to guess an operator it does not model', () => {
    expect(() =>
      evaluate(
        policy({
          Effect: 'Allow',
          Action: '*',
          Resource: '*',
          Condition: { DateLessThan: { 'aws:CurrentTime': 'x' } },
        }),
        request({ context: { 'aws:CurrentTime': 'y' } }),
      ),
    ).toThrow(/DateLessThan is not modelled/);
  });
});
