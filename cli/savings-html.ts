import type { SavingsJson } from './savings-json';

/**
 * `podlift savings --html <file>`: one self-contained page, in the simulator report's style
 * (sim/report/html.ts): the figures, a bar chart of today's cost, podlift's and the bound, and
 * the nodes and constraints as tables. Inline CSS and SVG only; it loads nothing, so it opens
 * offline and can be attached to a ticket.
 */
export function renderSavingsHtml(s: SavingsJson): string {
  const title = `podlift savings: ${s.source}`;
  const figures: [string, string][] = [
    ['today', `${usd(s.today.hourlyCost)}/h · ${usd(s.today.monthlyCost, 0)}/month`],
    ['podlift', `${usd(s.podlift.hourlyCost)}/h · ${usd(s.podlift.monthlyCost, 0)}/month`],
    ['lower bound', `${usd(s.lowerBound.hourlyCost)}/h${s.lowerBound.converged ? '' : ' (stopped early)'}`],
    ['saving', `${usd(s.saving.monthly, 0)}/month (${s.saving.percent} %)`],
    ['at most', `${usd(s.saving.atMostMonthly, 0)}/month`],
    ['pods compared', String(s.pods)],
    ['nodes today → podlift', `${s.today.nodes.length} → ${s.podlift.nodes.length}`],
    ['NodePools', `${s.podlift.nodePools.join(', ')}${s.podlift.defaultNodePool ? ' (default)' : ''}`],
  ];
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${STYLE}</style>`,
    '</head><body><main>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<p class="muted">${escapeHtml(s.region)}; prices USD from the bundled catalog (spot estimated unless --spot-prices)</p>`,
    `<dl class="summary">${figures.map(([k, v]) => `<div><dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd></div>`).join('')}</dl>`,
    costChart(s),
    '<h2>What constrains the saving most</h2>',
    table(
      ['constraint', 'pods', 'detail'],
      s.constraints.map((c) => [
        c.kind,
        `${c.count}: ${c.pods.join(', ')}${c.count > c.pods.length ? ', …' : ''}`,
        c.detail,
      ]),
      'nothing stands out',
    ),
    '<h2>Today</h2>',
    table(
      ['node', 'instance type', 'capacity', 'zone', 'pods', '$/h'],
      s.today.nodes.map((n) => [
        n.name,
        n.instanceType,
        n.capacityType,
        n.zone ?? '—',
        String(n.pods),
        usd(n.hourlyPrice),
      ]),
      'no priced nodes',
    ),
    ...(s.today.excludedNodes.length > 0
      ? [
          '<h3>Left out, with their pods</h3>',
          table(
            ['node', 'reason'],
            s.today.excludedNodes.map((e) => [e.name, e.reason]),
            '',
          ),
        ]
      : []),
    '<h2>podlift</h2>',
    table(
      ['NodePool', 'instance type', 'capacity', 'zone', 'pods', '$/h'],
      s.podlift.nodes.map((n) => [
        n.nodePool,
        n.instanceType,
        n.capacityType,
        n.zone ?? '—',
        String(n.pods),
        usd(n.hourlyPrice),
      ]),
      'no nodes',
    ),
    '</main></body></html>',
    '',
  ].join('\n');
}

/** Three horizontal bars on one scale: today, podlift, the bound. */
function costChart(s: SavingsJson): string {
  const bars: [string, number, string][] = [
    ['today', s.today.hourlyCost, '#8c959f'],
    ['podlift', s.podlift.hourlyCost, '#0969da'],
    ['lower bound', s.lowerBound.hourlyCost, '#1a7f37'],
  ];
  const max = Math.max(...bars.map((b) => b[1]), 1e-9);
  const width = 600;
  const rows = bars.map(([label, value, colour], i) => {
    const y = 10 + i * 34;
    const w = Math.max(1, (value / max) * (width - 230));
    return `<text class="tick" x="0" y="${y + 17}">${escapeHtml(label)}</text><rect x="110" y="${y}" width="${w.toFixed(1)}" height="24" fill="${colour}" rx="3"></rect><text class="tick" x="${(118 + w).toFixed(1)}" y="${y + 17}">${escapeHtml(usd(value))}/h</text>`;
  });
  return `<figure class="chart"><figcaption>Cost, $/hour</figcaption><svg viewBox="0 0 ${width} 112" role="img" aria-label="cost today, with podlift and the lower bound">${rows.join('')}</svg></figure>`;
}

function table(headers: readonly string[], rows: readonly (readonly string[])[], empty: string): string {
  if (rows.length === 0) return `<p class="empty">${escapeHtml(empty)}</p>`;
  const head = headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('');
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function usd(n: number, digits = 4): string {
  return `$${n.toFixed(digits)}`;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// System fonts only: the page must render offline, with nothing fetched.
const STYLE = `
:root{color-scheme:light;--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--panel:#f6f8fa}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
main{max-width:940px;margin:0 auto;padding:24px 16px 48px}h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}h3{font-size:15px;margin:16px 0 6px}
.muted{color:var(--muted);margin:0 0 16px}
.summary{display:grid;grid-template-columns:repeat(auto-fill,minmax(210px,1fr));gap:8px;margin:0 0 20px}
.summary div{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 10px}
.summary dt{color:var(--muted);font-size:12px}.summary dd{margin:2px 0 0;font-size:16px;font-weight:600;font-variant-numeric:tabular-nums}
.chart{margin:0 0 18px;border:1px solid var(--line);border-radius:6px;padding:8px 10px}
.chart figcaption{font-weight:600;margin-bottom:4px}.chart svg{width:100%;height:auto;display:block}.tick{fill:var(--muted);font-size:12px}
.empty{color:var(--muted);font-style:italic}
table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{background:var(--panel)}
`;
