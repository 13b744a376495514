import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../functions/observability';

// docs/operations.md's metrics table is what an operator builds alarms and queries from: a
// metric the functions publish that the table does not name, or one it names that no function
// publishes any more, is a stale page.

describe("docs/operations.md's metrics table", () => {
  const page = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8');
  const table = page.slice(page.indexOf('## Metrics'), page.indexOf('\n## ', page.indexOf('## Metrics') + 1));
  const named = new Set(
    [...table.matchAll(/^\| ([^|]+) \|/gm)].flatMap((row) =>
      [...row[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!),
    ),
  );

  it('names every metric the functions publish, and no other', () => {
    expect([...named].sort()).toEqual(Object.values(METRICS).sort());
  });
});
