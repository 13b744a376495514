import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { DiffJson } from '../../cli/diff-output';
import type { RolloutPlayer } from '../../cli/diff-rollout';
import { run } from '../../cli/run';
import { startFakeKubeApiServer } from '../../sim/fakes/kube';
import { playRollout } from '../../sim/rollout/play';
import { FakeIO } from './fixtures';

/**
 * `podlift diff` on examples/diff: a cluster whose figures can be checked by hand.
 *
 * us-east-1 on-demand: m5.large $0.096/h (allocatable 1930m CPU), m5.xlarge $0.192/h. Today:
 * web-a, web-b (m5.large, two 500m web pods each), web-c (m5.xlarge, two web pods and a 250m
 * payments pod with do-not-disrupt) and batch-a (m5.large): $0.48/h.
 */

const DIR = 'examples/diff';
const RESOURCES: Readonly<Record<string, string>> = {
  NodePool: 'nodepools.karpenter.sh',
  EC2NodeClass: 'ec2nodeclasses.karpenter.k8s.aws',
  NodeClaim: 'nodeclaims.karpenter.sh',
  Node: 'nodes',
  Pod: 'pods',
  PodDisruptionBudget: 'poddisruptionbudgets.policy',
};

/** Runs `podlift diff` in-process; `files` are extra in-memory files beside the real ones. */
async function diff(
  args: readonly string[],
  options: { files?: Record<string, string>; playRollout?: RolloutPlayer } = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(['diff', ...args], {
    stdin: async () => '',
    stdout: (s) => {
      out += s;
    },
    stderr: (s) => {
      err += s;
    },
    readFile: async (path) => options.files?.[path] ?? readFile(path, 'utf8'),
    ...(options.playRollout ? { playRollout: options.playRollout } : {}),
  });
  return { code, out, err };
}

async function diffJson(changed: string, files: Record<string, string> = {}): Promise<DiffJson> {
  const { code, out, err } = await diff([changed, `${DIR}/cluster.yaml`, '--no-rollout', '-o', 'json'], {
    files,
  });
  expect(err).toBe('');
  expect(code).toBe(0);
  return JSON.parse(out) as DiffJson;
}

// biome-ignore lint/suspicious/noExplicitAny: edits reach into the YAML's untyped tree
type Json = Record<string, any>;

/** The example's web NodePool with `edit` applied to a copy. */
async function editedWebPool(edit: (pool: Json) => void): Promise<string> {
  const pool = parse(await readFile(`${DIR}/web-nodepool.yaml`, 'utf8'));
  edit(pool);
  return stringify(pool);
}

const driftOf = (d: DiffJson) => Object.fromEntries(d.nodeClaims.map((c) => [c.nodeClaim, c.drift]));

describe('podlift diff (drift and replacement)', () => {
  it('drifts every web NodeClaim when the template gains a label, and replaces three nodes by two m5.large', async () => {
    const d = await diffJson(`${DIR}/web-nodepool.yaml`);
    expect(driftOf(d)).toEqual({
      'web-a': 'drifts',
      'web-b': 'drifts',
      'web-c': 'drifts',
      'batch-a': 'unchanged',
    });
    // Karpenter's hash versions are re-stamped against today's pool first, so the label is the change.
    expect(new Set(d.nodeClaims.filter((c) => c.drift === 'drifts').map((c) => c.reason))).toEqual(
      new Set(['NodePoolDrifted']),
    );
    // Seven pods, 3,250m, of which an m5.large takes 1,930m: two nodes (1,500m + 1,750m).
    expect(d.replacement.nodeClaims.map((c) => [c.nodePool, c.instanceType, c.capacityType])).toEqual([
      ['web', 'm5.large', 'on-demand'],
      ['web', 'm5.large', 'on-demand'],
    ]);
    expect(d.replacement.nodeClaims.reduce((n, c) => n + c.pods, 0)).toBe(7);
    expect(d.replacement.hourlyCostBefore).toBe(0.48);
    // batch-a stays ($0.096) beside two new m5.large ($0.192).
    expect(d.replacement.hourlyCostAfter).toBe(0.288);
    expect(d.notes).toEqual([
      'web-c: pod shop/payments-5d8b7f9c4-x4k2p has karpenter.sh/do-not-disrupt; drift does not take the node while it runs there',
    ]);
  });

  it('drifts only the node the narrowed requirements no longer admit (RequirementsDrifted), whose pods fit on the others', async () => {
    const changed = await editedWebPool((pool) => {
      delete pool.spec.template.metadata;
    });
    const d = await diffJson('narrowed.yaml', { 'narrowed.yaml': changed });
    expect(driftOf(d)).toEqual({
      'web-a': 'unchanged',
      'web-b': 'unchanged',
      'web-c': 'drifts',
      'batch-a': 'unchanged',
    });
    expect(d.nodeClaims.find((c) => c.nodeClaim === 'web-c')).toMatchObject({
      reason: 'RequirementsDrifted',
    });
    // web-a and web-b use 1,000m of 1,930m each: 500m + 250m on one, 500m on the other.
    expect(d.replacement.nodeClaims).toEqual([]);
    expect(d.replacement.podsOnExistingNodes).toBe(3);
    expect(d.replacement.hourlyCostAfter).toBe(0.288);
  });

  it('drifts nothing when only the NodePool’s disruption settings change (they are not hashed)', async () => {
    const changed = await editedWebPool((pool) => {
      pool.spec.template.metadata = undefined;
      pool.spec.template.spec.requirements[1].values = ['m5.large', 'm5.xlarge'];
      pool.spec.disruption.budgets = [{ nodes: '50%' }];
    });
    const d = await diffJson('budget.yaml', { 'budget.yaml': changed });
    expect(Object.values(driftOf(d))).toEqual(['unchanged', 'unchanged', 'unchanged', 'unchanged']);
    expect(d.replacement.hourlyCostAfter).toBe(d.replacement.hourlyCostBefore);
  });

  it('drifts every NodeClaim of a changed EC2NodeClass by its hash, and cannot tell new AMI terms offline', async () => {
    const cluster = parse(await readFile(`${DIR}/cluster.yaml`, 'utf8'));
    const nodeClass = cluster.items.find((o: { kind: string }) => o.kind === 'EC2NodeClass');
    const tagged = { ...nodeClass, spec: { ...nodeClass.spec, tags: { team: 'platform' } } };
    const hashed = await diffJson('tags.yaml', { 'tags.yaml': stringify(tagged) });
    expect(new Set(hashed.nodeClaims.map((c) => `${c.drift} ${c.reason}`))).toEqual(
      new Set(['drifts NodeClassDrift']),
    );
    const pinned = {
      ...nodeClass,
      spec: { ...nodeClass.spec, amiFamily: 'AL2023', amiSelectorTerms: [{ id: 'ami-0123456789abcdef0' }] },
    };
    const ami = await diffJson('ami.yaml', { 'ami.yaml': stringify(pinned) });
    expect(new Set(ami.nodeClaims.map((c) => c.drift))).toEqual(new Set(['unknown']));
    expect(ami.nodeClaims[0].message).toBe(
      "EC2NodeClass default's amiSelectorTerms changed: what they select only EC2 can tell",
    );
  });

  it('prints a table with the drift, the replacement and the cost', async () => {
    const { code, out } = await diff([`${DIR}/web-nodepool.yaml`, `${DIR}/cluster.yaml`, '--no-rollout']);
    expect(code).toBe(0);
    expect(out).toContain('Drift: 3 of 4 NodeClaims would drift');
    expect(out).toContain('web-c      ip-10-0-1-13.ec2.internal  web       m5.xlarge');
    expect(out).toContain('Cost:                     $0.4800/hour → $0.2880/hour (-$140.16/month)');
  });

  it('refuses what it cannot diff, naming the file and kind', async () => {
    const deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web' } };
    const bad = await diff(['deploy.yaml', `${DIR}/cluster.yaml`], {
      files: { 'deploy.yaml': stringify(deployment) },
    });
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('deploy.yaml');
    expect(bad.err).toContain('podlift diff takes NodePool and EC2NodeClass objects');
    const none = await diff([]);
    expect(none.code).toBe(2);
    expect(none.err).toContain('missing the changed NodePool or EC2NodeClass file');
    const duration = await diff([
      `${DIR}/web-nodepool.yaml`,
      `${DIR}/cluster.yaml`,
      '--max-duration',
      'soon',
    ]);
    expect(duration.code).toBe(2);
    expect(duration.err).toContain("--max-duration must be a duration such as 90m or 6h (got 'soon')");
  });

  it('says so when no simulator is wired in', async () => {
    const { code, out } = await diff([`${DIR}/web-nodepool.yaml`, `${DIR}/cluster.yaml`, '-o', 'json']);
    expect(code).toBe(0);
    expect((JSON.parse(out) as DiffJson).notes).toContain(
      'this podlift has no simulator wired in: the rollout was not played',
    );
  });
});

describe('podlift diff on a live cluster', () => {
  it('gives the same answer from the fake API server as from the dump, reading only', async () => {
    const server = await startFakeKubeApiServer();
    try {
      const dump = parse(await readFile(`${DIR}/cluster.yaml`, 'utf8')) as { items: Json[] };
      server.store.seed('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } });
      for (const item of dump.items) server.store.seed(RESOURCES[item.kind], item);
      const kubeconfig = server.kubeConfig().exportConfig();
      const changed = await readFile(`${DIR}/web-nodepool.yaml`, 'utf8');
      const io = new FakeIO({ '/k': kubeconfig, 'web.yaml': changed });
      const code = await run(['diff', 'web.yaml', '--kubeconfig', '/k', '--no-rollout', '-o', 'json'], io);
      expect(io.err).toBe('');
      expect(code).toBe(0);
      const { source, ...live } = JSON.parse(io.out) as DiffJson;
      expect(source).toBe(`context "fake" (${server.url})`);
      const { source: _file, ...fromDump } = await diffJson(`${DIR}/web-nodepool.yaml`);
      expect(live).toEqual(fromDump);
      expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
    } finally {
      await server.close();
    }
  });
});

describe('podlift diff (rollout in the simulator)', () => {
  it('takes one web node at a time, moves their pods, and waits for do-not-disrupt on web-c', async () => {
    const { code, out, err } = await diff(
      [`${DIR}/web-nodepool.yaml`, `${DIR}/cluster.yaml`, '-o', 'json', '--max-duration', '7m'],
      { playRollout },
    );
    expect(err).toBe('');
    expect(code).toBe(0);
    const rollout = (JSON.parse(out) as DiffJson).rollout!;
    // The web NodePool's budget is one node: web-b goes only once web-a is gone.
    expect(rollout.maxConcurrent).toBe(1);
    const claims = Object.fromEntries(rollout.claims.map((c) => [c.nodeClaim, c]));
    expect(claims['web-a'].goneAtMs).toBeDefined();
    expect(claims['web-b'].disruptedAtMs).toBeGreaterThanOrEqual(claims['web-a'].goneAtMs!);
    expect(claims['web-b'].goneAtMs).toBeDefined();
    expect(claims['web-c'].disruptedAtMs).toBeUndefined();
    expect(rollout.finished).toBe(false);
    expect(rollout.blocks).toContainEqual(
      expect.objectContaining({
        subject: 'web-c',
        why: 'pod shop/payments-5d8b7f9c4-x4k2p has karpenter.sh/do-not-disrupt',
      }),
    );
    // The four web pods of web-a and web-b were evicted (recreated ones may move again).
    expect(rollout.podsMoved.map((p) => p.pod)).toEqual(
      expect.arrayContaining([
        'shop/web-7c9f8d6b5-2xkqv',
        'shop/web-7c9f8d6b5-8hzpt',
        'shop/web-7c9f8d6b5-b4m7w',
        'shop/web-7c9f8d6b5-d9rls',
      ]),
    );
    expect(rollout.pendingAtEnd).toBe(0);
  }, 240_000);
});
