import * as z from 'zod';

/**
 * The launch settings Karpenter v1.14 added to the EC2NodeClass: placementGroupSelector,
 * networkInterfaces, connectionTracking and cpuOptions, with the shapes and CEL rules of
 * aws/karpenter-provider-aws pkg/apis/v1/ec2nodeclass.go (PlacementGroupSelector,
 * NetworkInterface, ConnectionTracking, CPUOptions).
 */

/** spec.placementGroupSelector: exactly one of name and id. */
export const placementGroupSelector = z
  .strictObject({
    name: z.string().min(1).optional(),
    id: z
      .string()
      .regex(/^pg-[0-9a-z]+$/, 'must be a placement group id ("pg-0123abcd")')
      .optional(),
  })
  .superRefine((s, ctx) => {
    if (s.name === undefined && s.id === undefined) {
      ctx.addIssue({ code: 'custom', message: "expected at least one, got none, ['name', 'id']" });
    }
    if (s.name !== undefined && s.id !== undefined) {
      ctx.addIssue({ code: 'custom', message: "'name' and 'id' are mutually exclusive", path: ['id'] });
    }
  });

const networkInterface = z.strictObject({
  networkCardIndex: z.int32().min(0),
  deviceIndex: z.int32().min(0),
  interfaceType: z.enum(['interface', 'efa-only']),
});

/**
 * spec.networkInterfaces: a primary ENA interface (card 0, device 0) whenever the list is not
 * empty, no card/device pair twice, at most one efa-only interface per card.
 */
export const networkInterfaces = z
  .array(networkInterface)
  .max(150)
  .superRefine((nics, ctx) => {
    if (
      nics.length > 0 &&
      !nics.some((n) => n.deviceIndex === 0 && n.networkCardIndex === 0 && n.interfaceType === 'interface')
    ) {
      ctx.addIssue({
        code: 'custom',
        message: "networkInterfaces must include a primary interface with interfaceType='interface'",
      });
    }
    nics.forEach((n, i) => {
      const samePair = nics.filter(
        (m) => m.networkCardIndex === n.networkCardIndex && m.deviceIndex === n.deviceIndex,
      ).length;
      const efaOnCard = nics.filter(
        (m) => m.networkCardIndex === n.networkCardIndex && m.interfaceType === 'efa-only',
      ).length;
      if (samePair > 1 || (n.interfaceType === 'efa-only' && efaOnCard > 1)) {
        ctx.addIssue({
          code: 'custom',
          message:
            'networkInterfaces must not have duplicate networkCardIndex and deviceIndex pairs, and can have at most one efa device per network card',
          path: [i],
        });
      }
    });
  });

/** spec.connectionTracking: idle timeouts in seconds, at least one set. */
export const connectionTracking = z
  .strictObject({
    tcpEstablishedTimeout: z.int32().min(60).max(432_000).optional(),
    udpStreamTimeout: z.int32().min(60).max(180).optional(),
    udpTimeout: z.int32().min(30).max(60).optional(),
  })
  .superRefine((c, ctx) => {
    if (
      c.tcpEstablishedTimeout === undefined &&
      c.udpStreamTimeout === undefined &&
      c.udpTimeout === undefined
    ) {
      ctx.addIssue({
        code: 'custom',
        message: 'at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set',
      });
    }
  });

/** spec.cpuOptions. */
export const cpuOptions = z.strictObject({
  nestedVirtualization: z.enum(['enabled', 'disabled']).optional(),
});
