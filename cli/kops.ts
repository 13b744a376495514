import { join } from 'node:path';
import { stringify } from 'yaml';
import {
  type KopsDocument,
  karpenterInstanceGroupNames,
  karpenterManifestsFromKops,
  nodeupScriptPath,
} from '../shared/core/kops/karpenter-objects';
import { isKopsManifest } from '../shared/core/kops/kops-schema';
import type { ValidationLocation } from '../shared/core/model/errors';
import { isObject, loadKubernetesYaml } from '../shared/yaml/kubernetes-yaml';

/** `podlift kops --help`. */
export const KOPS_HELP = `Usage: podlift kops <instancegroups.yaml | -> [options]

Prints the EC2NodeClass and NodePool kOps (1.36) generates for each InstanceGroup with
'spec.manager: Karpenter', by kOps' own rules, as YAML for 'podlift plan', the CDK stack's
nodePoolFiles or kubectl. Reads kops.k8s.io/v1alpha2 YAML ('-' reads standard input): the
output of 'kops get ig -o yaml', or a file that also holds the Cluster (then the subnets'
types decide associatePublicIPAddress, and the Cluster's karpenter.featureGates whether
minSize may make a NodePool static).

kOps builds two things from state podlift does not have offline:
  userData             the InstanceGroup's nodeup script, which kOps writes to
                       <configBase>/igconfig/node/<name>/nodeupscript.sh. Without
                       --nodeup-dir a placeholder naming that location is printed: copy the
                       script in before deploying.
  blockDeviceMappings  the root volume needs the image's root device name, which kOps asks EC2
                       for; without --root-device-name the mapping is left out.

Options:
      --nodeup-dir <dir>          a copy of the cluster's configBase (at least igconfig/):
                                  aws s3 sync <configBase>/igconfig <dir>/igconfig
      --root-device-name <name>   the image's root device, e.g. /dev/sda1 (Ubuntu) or
                                  /dev/xvda (Amazon Linux, Debian, Flatcar): see
                                  aws ec2 describe-images --query 'Images[].RootDeviceName'
  -h, --help                      Show this help

Exit codes: 0 printed, 2 invalid input or usage (what kOps refuses, named by file, document,
InstanceGroup and field), 1 other failure.

Examples:
  kops get ig --name my.cluster.example.com -o yaml | podlift kops - > karpenter.yaml
  podlift kops cluster.yaml --nodeup-dir ./state --root-device-name /dev/sda1
`;

/** What `podlift kops` borrows from the CLI's runner (run.ts), passed in so neither imports the other. */
export interface KopsCommandTools {
  readonly parseArgs: (
    args: string[],
    options: Readonly<Record<string, { type: 'string' }>>,
  ) => { values: Record<string, unknown>; positionals: string[] };
  readonly readInput: (path: string) => Promise<string>;
  readonly readStdin: () => Promise<string>;
  readonly usageError: (message: string) => Error;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Runs `podlift kops`: reads the kOps objects, converts them, prints YAML and the warnings. */
export async function kopsCommand(args: string[], tools: KopsCommandTools): Promise<void> {
  const { values, positionals } = tools.parseArgs(args, {
    'nodeup-dir': { type: 'string' },
    'root-device-name': { type: 'string' },
  });
  const nodeupDir = values['nodeup-dir'] as string | undefined;
  const rootDeviceName = values['root-device-name'] as string | undefined;
  if (positionals.length !== 1) {
    throw tools.usageError(
      positionals.length === 0
        ? "missing the InstanceGroups file (use '-' to read standard input)"
        : `expected one input file, got ${positionals.length}: ${positionals.join(' ')}`,
    );
  }
  if (rootDeviceName !== undefined && !/^\/dev\/[a-z0-9]+$/.test(rootDeviceName)) {
    throw tools.usageError(`--root-device-name must be a device like /dev/xvda (got '${rootDeviceName}')`);
  }
  const [file] = positionals;
  const source = file === '-' ? '<stdin>' : file;
  const text = file === '-' ? await tools.readStdin() : await tools.readInput(file);
  const { documents, warnings } = readKopsDocuments(text, source);

  const nodeupScripts = new Map<string, string>();
  if (nodeupDir !== undefined) {
    for (const name of karpenterInstanceGroupNames(documents)) {
      nodeupScripts.set(name, await tools.readInput(join(nodeupDir, nodeupScriptPath(name))));
    }
  }
  const result = karpenterManifestsFromKops(documents, {
    nodeupScripts,
    ...(rootDeviceName !== undefined ? { rootDeviceName } : {}),
  });
  for (const w of [...warnings, ...result.warnings]) tools.stderr(`warning: ${w}\n`);
  if (result.manifests.length === 0) {
    tools.stderr(`warning: ${source}: no InstanceGroup with spec.manager: Karpenter; nothing to print\n`);
    return;
  }
  tools.stdout(formatManifests(result.manifests));
}

/**
 * The kOps objects of a YAML stream, with where each was found; documents of other API groups
 * are skipped with a warning (a `kind: List` is flattened, as kubectl does).
 */
export function readKopsDocuments(
  text: string,
  source: string,
): { documents: KopsDocument[]; warnings: string[] } {
  const documents: KopsDocument[] = [];
  const warnings: string[] = [];
  let documentIndex = 0;
  const add = (doc: unknown, location: ValidationLocation): void => {
    if (isObject(doc) && doc.kind === 'List' && Array.isArray(doc.items)) {
      for (const item of doc.items) add(item, location);
    } else if (isKopsManifest(doc)) {
      documents.push({ manifest: doc, location });
    } else if (doc !== null && doc !== undefined) {
      const kind = isObject(doc) ? String(doc.kind) : typeof doc;
      warnings.push(
        `${source} document ${location.documentIndex}: ${kind} is not a kops.k8s.io object; skipped`,
      );
    }
  };
  loadKubernetesYaml(text, source, (doc) => {
    add(doc, { source, documentIndex: documentIndex++ });
  });
  return { documents, warnings };
}

/** Multi-document YAML with keys sorted, as kOps prints them (sigs.k8s.io/yaml goes through JSON maps). */
export function formatManifests(manifests: readonly Record<string, unknown>[]): string {
  return manifests
    .map((m) => stringify(m, { sortMapEntries: true, lineWidth: 0, aliasDuplicateObjects: false }))
    .join('---\n');
}
