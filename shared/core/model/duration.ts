/**
 * Durations as Karpenter's NodePool takes them (`expireAfter`, `terminationGracePeriod`,
 * `consolidateAfter`): Go-style hours, minutes and seconds ("720h", "1h30m", "45s"), or "Never".
 */

const UNIT_MS: Readonly<Record<string, number>> = { h: 3_600_000, m: 60_000, s: 1_000 };

/** Milliseconds of `text`; undefined for "Never". @throws Error on anything else unparsable. */
export function durationMs(text: string): number | undefined {
  if (text === 'Never') return undefined;
  const parts = [...text.matchAll(/(\d+)([hms])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    throw new Error(
      `duration ${JSON.stringify(text)}: expected hours, minutes and seconds like "1h30m", or "Never"`,
    );
  }
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_MS[unit], 0);
}
