/**
 * The watcher's container entry: reads the environment, builds the Kubernetes and EventBridge
 * clients, serves the probes and metrics, and on SIGTERM (or SIGINT) publishes the batch in
 * hand, closes the watches and exits 0. A bad environment exits 2 naming each variable.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { KubeConfig } from '@kubernetes/client-node';
import { EventBridgePublisher } from '../shared/aws/eventbridge/eventbridge-publisher';
import { sdkClientConfig } from '../shared/aws/sdk-client-config';
import { isConfigurationError } from '../shared/core/model/errors';
import { systemTime } from '../shared/runtime/system-time';
import { parseWatcherConfig, WATCHER_ENVIRONMENT } from './config';
import { startHealthServer } from './health-server';
import { kubeListWatchSources } from './kube-list-watch';
import { Watcher } from './watcher';
import type { WatcherLog } from './watcher-log';

const USAGE = `podlift watcher: turns cluster changes into PodsPending and CapacityChanged events.
Runs in a pod (in-cluster service account). Configured by environment:
${Object.entries(WATCHER_ENVIRONMENT)
  .map(([name, description]) => `  ${name.padEnd(24)} ${description}`)
  .join('\n')}
Serves /healthz, /readyz and /metrics on PORT.`;

async function main(): Promise<number> {
  if (process.argv.includes('--help')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = parseWatcherConfig(process.env);
  const logger = new Logger({
    serviceName: 'podlift-watcher',
    persistentKeys: { cluster: config.clusterName },
  });
  const log: WatcherLog = {
    info: (message, attributes = {}) => logger.info(message, attributes),
    warn: (message, attributes = {}) => logger.warn(message, attributes),
    error: (message, attributes = {}) => logger.error(message, attributes),
  };
  const time = systemTime();
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromCluster();
  const publisher = new EventBridgePublisher({
    eventBridge: new EventBridgeClient(sdkClientConfig({ region: config.region })),
    eventBusName: config.eventBusName,
    // A few quick tries per publish; the watcher keeps the batch and retries with its own backoff.
    retry: { timers: time, random: Math.random, maxAttempts: 3 },
  });
  const watcher = new Watcher({
    cluster: config.clusterName,
    sources: kubeListWatchSources(kubeConfig),
    publisher,
    clock: time,
    timers: time,
    batchIdleMs: config.batchIdleMs,
    batchMaxMs: config.batchMaxMs,
    podsPendingMaxMs: config.podsPendingMaxMs,
    log,
  });
  const server = await startHealthServer(watcher, { port: config.port });
  watcher.start();
  log.info('watcher started', { port: server.port, eventBusName: config.eventBusName });
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  log.info('stopping', { signal });
  await watcher.stop();
  await server.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(isConfigurationError(error) ? 2 : 1);
  },
);
