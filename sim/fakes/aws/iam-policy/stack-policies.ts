import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PolicyDocument } from './evaluate';

/** The roles of podlift's stack whose policies the fakes enforce. */
export type StackRole = 'functions' | 'termination' | 'watcher';

/** Each role's identity policies, with every intrinsic resolved to the world's values. */
export type StackPolicies = Readonly<Record<StackRole, readonly PolicyDocument[]>>;

/** Where the synthesized stack is placed: the simulator's account, region and cluster. */
export interface StackPlacement {
  readonly account: string;
  readonly region: string;
  readonly clusterName: string;
  /** The role EC2NodeClasses name (the stack imports it as a migrating Karpenter user would). */
  readonly nodeRoleName: string;
  /** The interruption queue's ARN, which CloudFormation would name. */
  readonly interruptionQueueArn: string;
}

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** What the synthesized policies depend on: a change to any of these synthesizes again. */
const INPUTS = ['infra', 'shared/core/model', 'shared/core/contracts', 'cdk.json', 'package-lock.json'];
const ROLE_PREFIXES: Readonly<Record<StackRole, string>> = {
  functions: 'PodliftFunctionsRole',
  termination: 'PodliftTerminationRole',
  watcher: 'PodliftIdentitiesWatcherRole',
};

/**
 * The policies of podlift's own stack, synthesized from infra/ (bundling and CloudFormation
 * validation off) and cached in the OS temp folder under a hash of infra/, the core model and
 * contracts, cdk.json, the lock file and `placement`, so the test processes synthesize once
 * between changes (~3 s) and read JSON after. The fakes enforce exactly what `cdk deploy`
 * would grant: a permission missing from infra/ fails in the simulator as in an account.
 */
export async function stackPolicies(placement: StackPlacement): Promise<StackPolicies> {
  const key = createHash('sha256')
    .update(JSON.stringify(placement))
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(inputsDigest())
    .digest('hex')
    .slice(0, 16);
  const dir = join(tmpdir(), 'podlift-stack-policies');
  const file = join(dir, `${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as StackPolicies;
  const policies = await synthesize(placement);
  mkdirSync(dir, { recursive: true });
  // Written then renamed, so a concurrent test process never reads half a file.
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(policies));
  renameSync(partial, file);
  return policies;
}

function inputsDigest(): string {
  const hash = createHash('sha256');
  const visit = (path: string): void => {
    const full = join(ROOT, path);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) visit(join(path, entry));
      return;
    }
    hash.update(relative(ROOT, full)).update(readFileSync(full));
  };
  for (const input of INPUTS) visit(input);
  return hash.digest('hex');
}

async function synthesize(placement: StackPlacement): Promise<StackPolicies> {
  // Loaded only on a cache miss: aws-cdk-lib alone takes seconds to import.
  const [{ App, aws_iam: iam }, { PodliftStack }, { WatcherImage }] = await Promise.all([
    import('aws-cdk-lib'),
    import('../../../../infra/stack'),
    import('../../../../infra/parts/watcher-image'),
  ]);
  const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const outdir = join(tmpdir(), 'podlift-stack-policies', `cdk.out.${process.pid}`);
  const app = new App({
    builtinCloudFormationValidation: false,
    outdir,
    context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [] },
  });
  const stack = new PodliftStack(app, `Podlift-${placement.clusterName}`, {
    env: { account: placement.account, region: placement.region },
    podlift: (scope) => ({
      clusterName: placement.clusterName,
      watcherImage: WatcherImage.fromUri('public.ecr.aws/podlift/watcher:0.0.0'),
      nodeRole: iam.Role.fromRoleName(scope, 'NodeRole', placement.nodeRoleName),
    }),
  });
  const template = app.synth().getStackByName(stack.stackName).template as Template;
  rmSync(outdir, { recursive: true, force: true });
  return policiesOf(template, placement);
}

interface Template {
  readonly Resources: Readonly<
    Record<string, { readonly Type: string; readonly Properties?: Record<string, unknown> }>
  >;
}

/** Each role's policy documents from `template`, intrinsics resolved for `placement`. */
export function policiesOf(template: Template, placement: StackPlacement): StackPolicies {
  const resolve = resolver(template, placement);
  const byRole = (prefix: string): PolicyDocument[] =>
    Object.values(template.Resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .filter((r) =>
        ((r.Properties?.Roles ?? []) as { Ref?: string }[]).some((role) => role.Ref?.startsWith(prefix)),
      )
      .map((r) => resolve(r.Properties?.PolicyDocument) as PolicyDocument);
  return {
    functions: byRole(ROLE_PREFIXES.functions),
    termination: byRole(ROLE_PREFIXES.termination),
    watcher: byRole(ROLE_PREFIXES.watcher),
  };
}

/**
 * Resolves CloudFormation intrinsics as a deployment in `placement` would: pseudo parameters,
 * `Fn::Join`, and `Fn::GetAtt ... Arn` / `Ref` of the stack's buses, queues, roles and log
 * groups by their names. Anything else becomes a value no request carries, so it can only deny.
 */
function resolver(template: Template, p: StackPlacement): (value: unknown) => unknown {
  const pseudo: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': p.region,
    'AWS::AccountId': p.account,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  const arnOf = (logicalId: string): string => {
    const resource = template.Resources[logicalId];
    const props = resource?.Properties ?? {};
    switch (resource?.Type) {
      case 'AWS::Events::EventBus':
        return `arn:aws:events:${p.region}:${p.account}:event-bus/${String(props.Name)}`;
      case 'AWS::SQS::Queue':
        return logicalId.startsWith('PodliftRoutingInterruptionQueue')
          ? p.interruptionQueueArn
          : `arn:aws:sqs:${p.region}:${p.account}:${logicalId}`;
      case 'AWS::IAM::Role':
        return `arn:aws:iam::${p.account}:role/${String(props.RoleName ?? logicalId)}`;
      case 'AWS::Logs::LogGroup':
        return `arn:aws:logs:${p.region}:${p.account}:log-group:${logicalId}:*`;
      default:
        return `unresolved:${logicalId}`;
    }
  };
  const resolve = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(resolve);
    if (value === null || typeof value !== 'object') return value;
    const record = value as Record<string, unknown>;
    if ('Ref' in record) {
      const ref = String(record.Ref);
      return pseudo[ref] ?? `unresolved:${ref}`;
    }
    if ('Fn::GetAtt' in record) {
      const [id, attribute] = record['Fn::GetAtt'] as [string, string];
      return attribute === 'Arn' ? arnOf(id) : `unresolved:${id}.${attribute}`;
    }
    if ('Fn::Join' in record) {
      const [separator, parts] = record['Fn::Join'] as [string, unknown[]];
      return parts.map((part) => String(resolve(part))).join(separator);
    }
    return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, resolve(v)]));
  };
  return resolve;
}
