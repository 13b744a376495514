import { z } from 'zod';

/**
 * The contract between the stack and the installer function: the custom resource's properties
 * (infra/parts/cluster-install.ts sets them, functions/install/install.ts reads them) and the
 * file the rendered manifests travel in beside the installer's bundle.
 */

/** The file beside the installer's index.mjs holding manifests/ as kustomize renders it. */
export const INSTALL_MANIFESTS_ASSET = 'install-manifests.json';

/** The custom resource's properties (strings: CloudFormation passes every scalar as one). */
export const installProperties = z.object({
  ClusterName: z.string().min(1),
  EventBusName: z.string().min(1),
  Region: z.string().min(1),
  WatcherImage: z.string().min(1),
  /** A digest of the manifests, so a changed manifest is an Update even with the same values. */
  ManifestsDigest: z.string(),
  /** Every object the manifests hold (formatRef), for the next Update's prune and the Delete. */
  Objects: z.array(z.string()),
});

/** The installer's properties as the stack sets them. */
export type InstallProperties = z.infer<typeof installProperties>;
