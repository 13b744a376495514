import { describe, expect, it } from 'vitest';
import { parseFeatureGates } from '../../../shared/core/model/feature-gates';

// kubernetes-sigs/karpenter pkg/operator/options/options.go `FeatureGates` parsed as a
// cliflag.MapStringBool: `Name=bool` pairs, each bool as strconv.ParseBool spells it.
describe('parseFeatureGates', () => {
  it.each(['1', 't', 'T', 'true', 'TRUE', 'True'])('turns NodeRepair on with %s', (value) => {
    expect(parseFeatureGates(`NodeRepair=${value}`)).toStrictEqual({ nodeRepair: true });
  });

  it.each(['0', 'f', 'F', 'false', 'FALSE', 'False'])('keeps NodeRepair off with %s', (value) => {
    expect(parseFeatureGates(`NodeRepair=${value}`)).toStrictEqual({ nodeRepair: false });
  });

  it('leaves every gate off for an empty value and ignores gates podlift does not have', () => {
    expect(parseFeatureGates('')).toStrictEqual({ nodeRepair: false });
    expect(parseFeatureGates('SpotToSpotConsolidation=true')).toStrictEqual({ nodeRepair: false });
    expect(parseFeatureGates('SpotToSpotConsolidation=true,NodeRepair=true')).toStrictEqual({
      nodeRepair: true,
    });
  });

  it('reads pairs with white space around names, values and commas', () => {
    expect(parseFeatureGates(' NodeRepair = true , ReservedCapacity=false ')).toStrictEqual({
      nodeRepair: true,
    });
    expect(parseFeatureGates('NodeRepair=true,')).toStrictEqual({ nodeRepair: true });
  });

  it.each(['NodeRepair', 'NodeRepair=yes', 'NodeRepair=true=false', 'NodeRepair=on,Other=true'])(
    'refuses the malformed %s',
    (text) => {
      expect(parseFeatureGates(text)).toBeUndefined();
    },
  );
});
