import { describe, expect, it } from 'vitest';
import { renderHtmlReport, summarise } from '../../../sim/report/html';
import type { SimulationRecord } from '../../../sim/report/record';
import { escapeHtml, niceCeiling, tickCount } from '../../../sim/report/svg-chart';

function record(overrides: Partial<SimulationRecord> = {}): SimulationRecord {
  return {
    scenario: 'inflate',
    durationMs: 60_000,
    samples: [
      {
        at: 0,
        nodesByType: {},
        pendingPods: 0,
        runningPods: 0,
        dollarsPerHour: 0,
        cpuUtilisation: 0,
        memoryUtilisation: 0,
      },
      {
        at: 30_000,
        nodesByType: { 'm5.large': 2, 'c5.xlarge': 1 },
        pendingPods: 10,
        runningPods: 4,
        dollarsPerHour: 0.362,
        cpuUtilisation: 0.5,
        memoryUtilisation: 0.25,
      },
      {
        at: 45_000,
        nodesByType: { 'm5.large': 3 },
        pendingPods: 5,
        runningPods: 10,
        dollarsPerHour: 0.288,
        cpuUtilisation: 0.9,
        memoryUtilisation: 0.75,
      },
    ],
    decisions: [
      {
        at: 12_000,
        actor: 'provisioner',
        kind: 'launched',
        message: 'launched NodeClaim default-a (m5.large, us-east-1a, spot)',
      },
      {
        at: 50_000,
        actor: 'disruption',
        kind: 'consolidated',
        message: 'replaced c5.xlarge',
        savedDollarsPerHour: 0.074,
      },
      {
        at: 55_000,
        actor: 'disruption',
        kind: 'consolidated',
        message: 'deleted node',
        savedDollarsPerHour: 0.096,
      },
    ],
    timeToCapacityMs: [40_000, 10_000, 20_000, 30_000],
    interruptionsSurvived: 1,
    expectations: [
      { description: 'every pod runs within 2m', held: true },
      { description: 'cost under $1/h', held: false, detail: 'peaked at $1.20/h' },
    ],
    ...overrides,
  };
}

/** The `<figure>` of one chart. */
function chart(html: string, id: string): string {
  const start = html.indexOf(`data-chart="${id}"`);
  expect(start, `chart ${id}`).toBeGreaterThan(0);
  return html.slice(start, html.indexOf('</figure>', start));
}

function attribute(fragment: string, name: string, series?: string): string | undefined {
  const scope = series === undefined ? fragment : fragment.slice(fragment.indexOf(`data-series="${series}"`));
  return new RegExp(`${name}="([^"]*)"`).exec(scope)?.[1];
}

describe('renderHtmlReport', () => {
  it('draws the five charts with the recorded values', () => {
    const html = renderHtmlReport(record());
    const nodes = chart(html, 'nodes');
    expect(attribute(nodes, 'data-times')).toBe('0,30000,45000');
    // Types in name order, stacked: c5.xlarge at the bottom, m5.large on top of it.
    expect(attribute(nodes, 'data-values', 'c5.xlarge')).toBe('0,1,0');
    expect(attribute(nodes, 'data-values', 'm5.large')).toBe('0,2,3');
    expect(nodes.match(/class="area"/g)).toHaveLength(2);
    expect(attribute(chart(html, 'pending'), 'data-values', 'pending pods')).toBe('0,10,5');
    expect(attribute(chart(html, 'cost'), 'data-values', '$/h')).toBe('0,0.362,0.288');
    const utilisation = chart(html, 'utilisation');
    expect(attribute(utilisation, 'data-values', 'cpu')).toBe('0,0.5,0.9');
    expect(attribute(utilisation, 'data-values', 'memory')).toBe('0,0.25,0.75');
    const decisions = chart(html, 'decisions');
    expect(decisions.match(/class="mark"/g)).toHaveLength(3);
    expect([...decisions.matchAll(/data-at="(\d+)"/g)].map((m) => m[1])).toEqual(['12000', '50000', '55000']);
  });

  it('draws a step line through each sample on the time and value scales', () => {
    const pending = chart(renderHtmlReport(record()), 'pending');
    // x: 64 + t/60 s × 800; y: 192 − v/10 × 180 (the axis tops at 10): 0 at t=0, 10 from 30 s, 5 from 45 s.
    expect(attribute(pending, ' d', 'pending pods')).toBe('M64,192H464L464,12H664L664,102H864');
  });

  it('stacks areas: the upper type starts where the lower one ends', () => {
    const nodes = chart(renderHtmlReport(record()), 'nodes');
    // Three nodes at most, so the axis tops at 5 and a node is 36 px: m5.large's area runs from
    // c5.xlarge's top (1 node at 30 s, y = 156) up to 3 nodes (y = 84), then back along c5.xlarge.
    expect(attribute(nodes, ' d', 'm5.large')).toBe(
      'M64,192H464L464,84H664L664,84H864L864,192H664L664,156H464L464,192H64Z',
    );
  });

  it('shows the summary figures', () => {
    const html = renderHtmlReport(record());
    const summary = html.slice(html.indexOf('<dl class="summary">'), html.indexOf('</dl>'));
    expect(summary).toContain('<dt>time to capacity p50</dt><dd>20.0 s</dd>');
    expect(summary).toContain('<dt>time to capacity p99</dt><dd>40.0 s</dd>');
    expect(summary).toContain('<dt>saved by consolidation</dt><dd>$0.1700/h</dd>');
    expect(summary).toContain('<dt>interruptions survived</dt><dd>1</dd>');
    expect(summary).toContain('<dt>expectations held</dt><dd>1 of 2</dd>');
    expect(summary).toContain('<dt>peak nodes</dt><dd>3</dd>');
    expect(html).toContain('✗ failed</td><td>cost under $1/h</td><td>peaked at $1.20/h</td>');
  });

  it('escapes every name it prints', () => {
    const hostile = '<img src=x onerror="alert(1)">&\'';
    const html = renderHtmlReport(
      record({
        scenario: `<script>alert(1)</script>`,
        samples: [{ ...record().samples[1], nodesByType: { [hostile]: 1 } } as never],
        decisions: [{ at: 0, actor: hostile, kind: hostile, message: `<b>${hostile}</b>` }],
        expectations: [{ description: hostile, held: true, detail: hostile }],
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain(`data-series="${escapeHtml(hostile)}"`);
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&#39;');
  });

  it('loads nothing from anywhere: no script, no external URL', () => {
    const html = renderHtmlReport(record());
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(|https?:\/\//i);
    expect(html.startsWith('<!doctype html>')).toBe(true);
  });

  it('renders an empty run without failing, saying so', () => {
    const html = renderHtmlReport(
      record({ samples: [], decisions: [], timeToCapacityMs: [], expectations: [] }),
    );
    expect(html).toContain('no decisions recorded');
    expect(html).toContain('<dt>time to capacity p50</dt><dd>—</dd>');
  });
});

describe('summarise', () => {
  it('weights $/h by how long each sample held and averages utilisation over samples with nodes', () => {
    const s = summarise(record());
    // 0 for 30 s, 0.362 for 15 s, 0.288 for 15 s.
    expect(s.meanDollarsPerHour).toBeCloseTo((0.362 * 15 + 0.288 * 15) / 60, 10);
    expect(s.meanCpuUtilisation).toBeCloseTo(0.7, 10);
    expect(s.peakDollarsPerHour).toBe(0.362);
    expect(s.finalDollarsPerHour).toBe(0.288);
  });
});

describe('niceCeiling', () => {
  it('rounds up to 1, 2, 2.5 or 5 times a power of ten', () => {
    expect([0, 0.3, 3, 7, 10, 11, 240, 260].map(niceCeiling)).toEqual([1, 0.5, 5, 10, 10, 20, 250, 500]);
  });
});

describe('tickCount', () => {
  it('divides the axis into round steps', () => {
    expect([1, 2, 2.5, 5, 10, 20, 0.5].map(tickCount)).toEqual([5, 4, 5, 5, 5, 4, 5]);
  });
});
