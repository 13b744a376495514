/**
 * What an EC2NodeClass may set, Karpenter v1.14 honours, and podlift accepts but honours only in
 * part or not at all: one sentence per setting, naming the field and what is ignored, so that a
 * NodeClass moved from Karpenter is never half-applied without a word.
 */

/** The parts of a parsed spec the warnings look at. */
interface WarnedSpec {
  readonly networkInterfaces?: readonly unknown[];
  readonly connectionTracking?: object;
  readonly cpuOptions?: { readonly nestedVirtualization?: string };
  readonly capacityReservationSelectorTerms?: readonly unknown[];
  readonly blockDeviceMappings?: readonly { readonly ebs?: { readonly volumeSize?: string } }[];
}

/** The warnings for `spec`. */
export function launchWarnings(spec: WarnedSpec): string[] {
  const warnings: string[] = [];
  if ((spec.networkInterfaces?.length ?? 0) > 0) {
    warnings.push(
      'spec.networkInterfaces is applied to the launch template and instance types are filtered by their EFA interfaces and default-card slots, but not by their other network cards as Karpenter does: a type without the card fails at launch',
    );
  }
  if (spec.cpuOptions?.nestedVirtualization === 'enabled') {
    warnings.push(
      'spec.cpuOptions.nestedVirtualization is applied to the launch template, but instance types are not limited to those supporting nested virtualization as Karpenter does: another type fails at launch',
    );
  }
  // capacityReservationSelectorTerms are honoured: reserved offerings, launches into them
  // (core/catalog/reserved-offerings.ts); status.capacityReservations is resolved afresh.
  (spec.blockDeviceMappings ?? []).forEach((m, i) => {
    const size = m.ebs?.volumeSize;
    if (size === 'Ti' || size === 'T') {
      warnings.push(
        `spec.blockDeviceMappings[${i}].ebs.volumeSize "${size}" has no number: it is read as 0, as Karpenter reads it, and EC2 refuses a 0 GiB volume at launch`,
      );
    }
  });
  return warnings;
}
