import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { LABEL_CAPACITY_TYPE, LABEL_OS } from '../shared/core/model/labels';
import type { Pod } from '../shared/core/model/pod';
import { ec2NodeClassManifest, nodePoolManifest, podManifest } from '../sim/world/builders';
import { WORKLOAD_SHAPES, type WorkloadShape, workload } from './workload';

/**
 * Writes a `podlift plan` input of the benchmark workload: one EC2NodeClass, one NodePool
 * (linux, on-demand, with cpu and memory limits, so the limited-NodePool path is timed) and the
 * pods as pending manifests, so the whole CLI process can be timed on it:
 *
 *   npx tsx bench/plan-input.ts --pods 20000 --out /tmp/plan-20k.yaml
 *   for i in 1 2 3 4 5; do /usr/bin/time -f '%e s %M KB' node bin/podlift.mjs plan /tmp/plan-20k.yaml > /dev/null; done
 */

const MILLI = 1000;
const MI = 2 ** 20;

/** A pod of the benchmark workload as the manifest kube-apiserver would return for it, pending. */
function manifestOf(p: Pod) {
  const requests = {
    cpu: `${(p.requests.cpu ?? 0) / MILLI}`,
    memory: `${Math.round((p.requests.memory ?? 0) / MI)}Mi`,
  };
  const required = (terms: Pod['podAffinity']) =>
    terms.map((t) => ({ labelSelector: t.labelSelector, topologyKey: t.topologyKey }));
  const affinity = {
    ...(p.podAffinity.length > 0
      ? { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required(p.podAffinity) } }
      : {}),
    ...(p.podAntiAffinity.length > 0
      ? { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: required(p.podAntiAffinity) } }
      : {}),
  };
  return podManifest({
    name: p.name,
    labels: p.labels,
    requests,
    ownerKind: 'ReplicaSet',
    unschedulable: true,
    ...(Object.keys(affinity).length > 0 ? { affinity } : {}),
    ...(p.topologySpread.length > 0
      ? {
          topologySpreadConstraints: p.topologySpread.map((c) => ({
            maxSkew: c.maxSkew,
            topologyKey: c.topologyKey,
            whenUnsatisfiable: c.whenUnsatisfiable,
            ...(c.labelSelector ? { labelSelector: c.labelSelector } : {}),
          })),
        }
      : {}),
  });
}

function main(): void {
  const { values } = parseArgs({
    options: {
      pods: { type: 'string', default: '20000' },
      shape: { type: 'string', default: 'karpenter' },
      out: { type: 'string' },
    },
  });
  const count = Number(values.pods);
  const shape = values.shape as WorkloadShape;
  if (!Number.isInteger(count) || count <= 0)
    throw new Error(`--pods ${values.pods}: expected a positive integer`);
  if (!WORKLOAD_SHAPES.includes(shape))
    throw new Error(`--shape ${values.shape}: expected ${WORKLOAD_SHAPES.join(', ')}`);
  const docs = [
    ec2NodeClassManifest(),
    nodePoolManifest({
      requirements: [
        { key: LABEL_OS, operator: 'In', values: ['linux'] },
        { key: LABEL_CAPACITY_TYPE, operator: 'In', values: ['on-demand'] },
      ],
      limits: { cpu: '100000', memory: '400000Gi' },
    }),
    ...workload(shape, count).map(manifestOf),
  ];
  const text = docs.map((d) => stringify(d, { aliasDuplicateObjects: false, lineWidth: 0 })).join('---\n');
  if (values.out) writeFileSync(values.out, text);
  else process.stdout.write(text);
}

main();
