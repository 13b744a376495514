import { describe, expect, it } from 'vitest';
import { celCases, coreOnly, transitionRules } from './cel-cases';
import { celRules, checkSpec, isTransitionRule, type LocatedRule } from './crd-schema';
import { coreRejection, manifestBuilders, withFields } from './custom-resources';

/**
 * The CRDs' CEL rules (x-kubernetes-validations) cannot run here: there is no CEL runtime and
 * no API server. Instead cel-cases.ts lists every rule with an object that breaks it, and these
 * tests check that (1) the list and the CRDs name the same rules, (2) the schema without CEL
 * accepts that object, so the rule is what rejects it, and (3) podlift's core rejects it too,
 * with the same reason. Adding a CEL rule without teaching the core fails (1).
 */

const id = (r: { kind: string; path: string; message: string }) => `${r.kind} ${r.path}: ${r.message}`;

const allRules: readonly LocatedRule[] = (['NodePool', 'NodeClaim', 'EC2NodeClass'] as const).flatMap(
  celRules,
);

describe('CEL rules of the CRDs', () => {
  it('are the validation rules cel-cases.ts lists, each with an object that breaks it', () => {
    const validation = allRules.filter((r) => r.kind !== 'NodeClaim' && !isTransitionRule(r)).map(id);
    expect(validation.sort()).toEqual(celCases.map(id).sort());
  });

  it('are the transition rules cel-cases.ts lists, which only the API server can check', () => {
    expect(allRules.filter(isTransitionRule).map(id).sort()).toEqual(transitionRules.map(id).sort());
  });

  it("give NodeClaim requirements the NodePool's rules, except that karpenter.sh/nodepool is allowed", () => {
    const nodeClaim = allRules.filter((r) => r.kind === 'NodeClaim' && !isTransitionRule(r));
    const fromNodePool = allRules
      .filter((r) => r.kind === 'NodePool' && r.path.startsWith('spec.template.spec.requirements'))
      .filter((r) => r.message !== 'label "karpenter.sh/nodepool" is restricted');
    const shape = (r: LocatedRule) =>
      `${r.path.replace('spec.template.spec.', 'spec.')}: ${r.message}: ${r.rule}`;
    expect(nodeClaim.map(shape).sort()).toEqual(fromNodePool.map(shape).sort());
  });

  it('each carry a message and a rule', () => {
    for (const r of allRules) {
      expect(r.message, id(r)).toMatch(/\S/);
      expect(r.rule, id(r)).toMatch(/\S/);
    }
  });
});

describe.each(celCases.map((c) => [id(c), c] as const))('CEL rule %s', (_, c) => {
  const manifest = withFields(manifestBuilders[c.kind](), c.breaking);

  it('is the only part of the CRD schema that rejects the breaking object', () => {
    expect(checkSpec(c.kind, manifest).errors).toEqual([]);
  });

  it('is enforced by the core too', () => {
    expect(coreRejection(c.kind, manifest)).toContain(c.core ?? c.message);
  });
});

describe.each(coreOnly.map((c) => [c.what, c] as const))('only the core rejects %s', (_, c) => {
  const manifest = withFields(manifestBuilders[c.kind](), c.changes);

  it('the CRD schema accepts it and no CEL rule is about it', () => {
    expect(checkSpec(c.kind, manifest).errors).toEqual([]);
    expect(allRules.map((r) => r.message)).not.toContain(c.core);
  });

  it('the core rejects it', () => {
    expect(coreRejection(c.kind, manifest)).toContain(c.core);
  });
});
