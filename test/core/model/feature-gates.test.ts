import { describe, expect, it } from 'vitest';
import { parseFeatureGates } from '../../../shared/core/model/feature-gates';

/** Karpenter's defaults: ReservedCapacity on, the others off. */
const off = {
  nodeRepair: false,
  spotToSpotConsolidation: false,
  reservedCapacity: true,
  globalConsolidation: false,
  podDeletionCostManagement: false,
  candidateTaint: false,
};

// kubernetes-sigs/karpenter pkg/operator/options/options.go `FeatureGates` parsed as a
// cliflag.MapStringBool: `Name=bool` pairs, each bool as strconv.ParseBool spells it.
describe('parseFeatureGates', () => {
  it.each(['1', 't', 'T', 'true', 'TRUE', 'True'])('turns NodeRepair on with %s', (value) => {
    expect(parseFeatureGates(`NodeRepair=${value}`)).toStrictEqual({ ...off, nodeRepair: true });
  });

  it.each(['0', 'f', 'F', 'false', 'FALSE', 'False'])('keeps NodeRepair off with %s', (value) => {
    expect(parseFeatureGates(`NodeRepair=${value}`)).toStrictEqual(off);
  });

  it('turns SpotToSpotConsolidation on and off by itself (options.go: default false)', () => {
    expect(parseFeatureGates('SpotToSpotConsolidation=true')).toStrictEqual({
      ...off,
      spotToSpotConsolidation: true,
    });
    expect(parseFeatureGates('SpotToSpotConsolidation=true,SpotToSpotConsolidation=F')).toStrictEqual(off);
    expect(parseFeatureGates('SpotToSpotConsolidation=true,NodeRepair=true')).toStrictEqual({
      nodeRepair: true,
      spotToSpotConsolidation: true,
      reservedCapacity: true,
      globalConsolidation: false,
      podDeletionCostManagement: false,
      candidateTaint: false,
    });
  });

  it('turns ReservedCapacity off and on (options.go: default true)', () => {
    expect(parseFeatureGates('ReservedCapacity=false')).toStrictEqual({ ...off, reservedCapacity: false });
    expect(parseFeatureGates('ReservedCapacity=false,ReservedCapacity=t')).toStrictEqual(off);
  });

  it("turns podlift's own GlobalConsolidation on and off (off by default)", () => {
    expect(parseFeatureGates('GlobalConsolidation=true')).toStrictEqual({
      ...off,
      globalConsolidation: true,
      podDeletionCostManagement: false,
    });
    expect(parseFeatureGates('GlobalConsolidation=true,GlobalConsolidation=0')).toStrictEqual(off);
  });

  it('turns PodDeletionCostManagement (Karpenter PR #2894’s gate) on and off (off by default)', () => {
    expect(parseFeatureGates('PodDeletionCostManagement=true')).toStrictEqual({
      ...off,
      podDeletionCostManagement: true,
    });
    expect(parseFeatureGates('PodDeletionCostManagement=t,PodDeletionCostManagement=false')).toStrictEqual(
      off,
    );
  });

  it("turns podlift's own CandidateTaint on and off (off by default)", () => {
    expect(parseFeatureGates('CandidateTaint=true')).toStrictEqual({ ...off, candidateTaint: true });
    expect(parseFeatureGates('CandidateTaint=true,CandidateTaint=false')).toStrictEqual(off);
  });

  it('leaves every gate off for an empty value and ignores gates podlift does not have', () => {
    expect(parseFeatureGates('')).toStrictEqual(off);
    expect(parseFeatureGates('StaticCapacity=true,NodeOverlay=true')).toStrictEqual(off);
  });

  it('reads pairs with white space around names, values and commas', () => {
    expect(parseFeatureGates(' NodeRepair = true , ReservedCapacity=false ')).toStrictEqual({
      ...off,
      nodeRepair: true,
      reservedCapacity: false,
    });
    expect(parseFeatureGates('NodeRepair=true,')).toStrictEqual({ ...off, nodeRepair: true });
    expect(parseFeatureGates(' SpotToSpotConsolidation =1')).toStrictEqual({
      ...off,
      spotToSpotConsolidation: true,
    });
  });

  it.each(['NodeRepair', 'NodeRepair=yes', 'NodeRepair=true=false', 'NodeRepair=on,Other=true'])(
    'refuses the malformed %s',
    (text) => {
      expect(parseFeatureGates(text)).toBeUndefined();
    },
  );
});
