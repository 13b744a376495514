/**
 * The measured side of the watcher footprint bench: bundled by footprint.ts like the watcher's
 * image (watcher/build.mjs) and run with plain node, so the process holds what the container
 * holds. Watches the API server at argv[2] with a publisher that drops everything, and prints
 * one `FOOTPRINT {json}` line once every resource is synced.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { systemTime } from '../../shared/runtime/system-time';
import { kubeListWatchSources } from '../../watcher/kube-list-watch';
import { Watcher } from '../../watcher/watcher';

const url = process.argv[2];
if (!url) throw new Error('footprint-child: expected the API server URL as the first argument');
const kubeConfig = new KubeConfig();
kubeConfig.loadFromOptions({
  clusters: [{ name: 'bench', server: url, skipTLSVerify: true }],
  users: [{ name: 'podlift', token: 'podlift-test-token' }],
  contexts: [{ name: 'bench', cluster: 'bench', user: 'podlift' }],
  currentContext: 'bench',
});
const time = systemTime();
const watcher = new Watcher({
  cluster: 'bench',
  sources: kubeListWatchSources(kubeConfig),
  publisher: { publish: async () => undefined },
  clock: time,
  timers: time,
});
const mb = (bytes: number) => bytes / 1024 / 1024;
let peakRssMB = 0;
let peakHeapUsedMB = 0;
const sample = () => {
  const m = process.memoryUsage();
  peakRssMB = Math.max(peakRssMB, mb(m.rss));
  peakHeapUsedMB = Math.max(peakHeapUsedMB, mb(m.heapUsed));
};
const sampler = setInterval(sample, 20);
const started = performance.now();
watcher.start();
while (!watcher.ready) await new Promise((resolve) => setTimeout(resolve, 10));
const syncMs = performance.now() - started;
sample();
clearInterval(sampler);
(globalThis as { gc?: () => void }).gc?.();
await new Promise((resolve) => setTimeout(resolve, 500));
const steady = process.memoryUsage();
process.stdout.write(
  `FOOTPRINT ${JSON.stringify({
    syncMs,
    peakRssMB,
    peakHeapUsedMB,
    // getrusage's high-water mark catches peaks between samples.
    maxRssMB: process.resourceUsage().maxRSS / 1024,
    steadyRssMB: mb(steady.rss),
    steadyHeapUsedMB: mb(steady.heapUsed),
  })}\n`,
);
await watcher.stop();
process.exit(0);
