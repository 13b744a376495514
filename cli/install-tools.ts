import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SSMClient } from '@aws-sdk/client-ssm';
import { sdkClientConfig } from '../shared/aws/sdk-client-config';
import { renderKustomization } from '../shared/yaml/kustomize-render';
import type { InstallCommandTools } from './install';

/**
 * The process side of `podlift install`: manifests/ of this checkout, an SSM client, real sleeps
 * (the kubeconfig comes from cli/kubeconfig.ts, as for the other commands).
 */
export function processInstallTools(): Pick<InstallCommandTools, 'manifests' | 'ssm' | 'sleep' | 'now'> {
  return {
    manifests: () => {
      const dir = manifestsDir();
      return renderKustomization((file) => readFileSync(join(dir, file), 'utf8'));
    },
    ssm: (region) => new SSMClient(sdkClientConfig({ region })),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    now: () => Date.now(),
  };
}

/** manifests/ of the checkout this CLI runs from (sources in cli/, or the bundle in dist/cli/). */
function manifestsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = join(dir, 'manifests');
    if (existsSync(join(candidate, 'kustomization.yaml'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("podlift install: cannot find podlift's manifests/ beside the CLI");
    dir = parent;
  }
}
