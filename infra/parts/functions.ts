import { join } from 'node:path';
import {
  Duration,
  type aws_iam as iam,
  aws_lambda as lambda,
  aws_lambda_event_sources as lambdaEvents,
  aws_logs as logs,
  aws_lambda_nodejs as nodejs,
  RemovalPolicy,
  Stack,
  Stage,
  type aws_sqs as sqs,
} from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { BUNDLED_CATALOG_ASSET } from '../../shared/aws/catalog/bundled-catalog-asset';
import { FUNCTION_TIMEOUT_SECONDS, type FunctionName } from '../../shared/core/contracts/routing';
import {
  FUNCTION_BUNDLE,
  FUNCTION_NODE_OPTIONS,
  FUNCTIONS_READING_THE_CATALOG,
  functionEntry,
  REPO_ROOT,
  writeCatalogAsset,
} from './function-bundle';

/** How one function is sized. */
export interface FunctionSizing {
  readonly memoryMb: number;
  readonly timeout: Duration;
  /** 1 where two concurrent runs for one cluster would only contend for the Lease. */
  readonly reservedConcurrency?: number;
}

/**
 * Sizes from docs/performance.md's invocation figures (`npm run bench:state`): a provisioner run reads 1,000
 * nodes / 10,000 pods in 1.3–1.8 s with 126 MB of heap, a disruption run 2.2–3.2 s, and
 * 5.0–6.5 s / 250 MB at 5,000 nodes / 50,000 pods. Lambda's CPU grows with memory (one full vCPU
 * at 1,769 MB), so 1,024 MB buys CPU more than heap; the one-minute timeout matches the
 * schedule, and a run that needs it is already one tick late. Provisioner and disruption hold the
 * cluster Lease for their whole run: a second concurrent invocation could only yield, so
 * reserved concurrency 1 keeps it from starting (EventBridge retries a throttled async call).
 * Interruption is fed by SQS, where reserved concurrency 1 would throttle the poller; the event
 * source's maximum concurrency (2, the minimum) bounds it instead. Termination takes no Lease
 * and every step is idempotent.
 */
export const FUNCTION_SIZING: Readonly<Record<FunctionName, FunctionSizing>> = {
  provisioner: {
    memoryMb: 1024,
    timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS.provisioner),
    reservedConcurrency: 1,
  },
  disruption: {
    memoryMb: 1024,
    timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS.disruption),
    reservedConcurrency: 1,
  },
  interruption: { memoryMb: 1024, timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS.interruption) },
  termination: { memoryMb: 512, timeout: Duration.seconds(FUNCTION_TIMEOUT_SECONDS.termination) },
};

/** Props of {@link PodliftFunctions}. */
export interface PodliftFunctionsProps {
  /** The role of each function (termination has its own, narrower one). */
  readonly roles: Readonly<Record<FunctionName, iam.IRole>>;
  /** The functions' environment (functions/config.ts FUNCTION_ENVIRONMENT, less AWS_REGION). */
  readonly environment: Readonly<Record<string, string>>;
  readonly logRetention: logs.RetentionDays;
  readonly interruptionQueue: sqs.IQueue;
}

/**
 * The four functions as NodejsFunctions bundled by the local esbuild (never Docker) as
 * ./function-bundle.ts defines: Node.js 22, arm64, ESM with the createRequire banner, minified,
 * with source maps. Everything is bundled, the AWS SDK included: the code is tested against the
 * locked SDK and @smithy versions (signature-v4 with @smithy/core's Hash), not whatever copy the
 * runtime carries. The functions that read the instance catalog get its compressed file beside
 * their `index.mjs`, written once per synth and copied by an afterBundling hook.
 */
export class PodliftFunctions extends Construct {
  readonly functions: Readonly<Record<FunctionName, nodejs.NodejsFunction>>;

  constructor(scope: Construct, id: string, props: PodliftFunctionsProps) {
    super(scope, id);
    // Written only when bundling runs (unit tests skip it: aws:cdk:bundling-stacks []).
    const catalogAsset = Stack.of(this).bundlingRequired
      ? writeCatalogAsset(join(Stage.of(this)?.outdir ?? join(REPO_ROOT, 'cdk.out'), '.podlift-catalog'))
      : undefined;
    const make = (name: FunctionName): nodejs.NodejsFunction => {
      const sizing = FUNCTION_SIZING[name];
      const logGroup = new logs.LogGroup(this, `${capitalise(name)}Logs`, {
        retention: props.logRetention,
        removalPolicy: RemovalPolicy.DESTROY,
      });
      logGroup.grantWrite(props.roles[name]);
      return new nodejs.NodejsFunction(this, capitalise(name), {
        description: `podlift ${name} loop`,
        entry: functionEntry(name),
        handler: 'handler',
        projectRoot: REPO_ROOT,
        depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
        runtime: lambda.Runtime.NODEJS_22_X,
        architecture: lambda.Architecture.ARM_64,
        memorySize: sizing.memoryMb,
        timeout: sizing.timeout,
        ...(sizing.reservedConcurrency === undefined
          ? {}
          : { reservedConcurrentExecutions: sizing.reservedConcurrency }),
        role: props.roles[name],
        logGroup,
        loggingFormat: lambda.LoggingFormat.JSON,
        // Read by Node, not by podlift: stack traces through the source maps (the bundle is minified).
        environment: { ...props.environment, NODE_OPTIONS: FUNCTION_NODE_OPTIONS },
        bundling: functionBundling(FUNCTIONS_READING_THE_CATALOG.has(name) ? catalogAsset : undefined),
      });
    };
    this.functions = {
      provisioner: make('provisioner'),
      interruption: make('interruption'),
      disruption: make('disruption'),
      termination: make('termination'),
    };
    this.functions.interruption.addEventSource(
      new lambdaEvents.SqsEventSource(props.interruptionQueue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        maxConcurrency: 2,
      }),
    );
  }
}

/**
 * {@link FUNCTION_BUNDLE} in NodejsFunction's terms (its `platform` is always node), plus, given
 * the path of the catalog file, the hook that copies it beside the bundle.
 */
export function functionBundling(catalogAsset: string | undefined): nodejs.BundlingOptions {
  const b = FUNCTION_BUNDLE;
  return {
    format: nodejs.OutputFormat.ESM,
    target: b.target,
    mainFields: [...b.mainFields],
    minify: b.minify,
    sourceMap: b.sourcemap,
    sourcesContent: b.sourcesContent,
    banner: b.banner,
    externalModules: [...b.external],
    // Becomes `--alias:whatwg-url=<path>` (bundling.ts toCliArgsArray).
    esbuildArgs: { '--alias': Object.entries(b.alias).map(([from, to]) => `${from}=${to}`) },
    ...(catalogAsset === undefined
      ? {}
      : {
          commandHooks: {
            beforeBundling: () => [],
            beforeInstall: () => [],
            afterBundling: (_inputDir: string, outputDir: string) => [
              `cp ${shellQuote(catalogAsset)} ${shellQuote(join(outputDir, BUNDLED_CATALOG_ASSET))}`,
            ],
          },
        }),
    // esbuild's size summary flags bundles over 1 MB; the CI synth fails on any warning line.
    logLevel: nodejs.LogLevel.WARNING,
    forceDockerBundling: false,
  };
}

/** `value` as one POSIX shell word (NodejsFunction runs hooks with `bash -c`). */
function shellQuote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}

function capitalise(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
