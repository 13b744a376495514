import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** A Markdown page of the documentation, by its repository-relative path. */
export interface DocPage {
  readonly path: string;
  readonly lines: readonly string[];
}

/** What the line before a shell block says about it. */
export type BlockMarker =
  | { readonly kind: 'check'; readonly spec: string }
  | { readonly kind: 'skip'; readonly reason: string }
  | { readonly kind: 'none' };

/** A fenced code block: its language, its body and the marker before it. */
export interface FencedBlock {
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: string;
  readonly body: readonly string[];
  readonly marker: BlockMarker;
}

/** Languages whose blocks are commands a reader may type, so each must be checked or skipped. */
export const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console']);

/** README.md and every page directly under docs/ (not docs/incoming/, which the lead places). */
export function documentationPages(root: string): DocPage[] {
  const paths = [
    'README.md',
    ...readdirSync(join(root, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .sort()
      .map((f) => `docs/${f}`),
  ];
  return paths.map((path) => ({ path, lines: readFileSync(join(root, path), 'utf8').split('\n') }));
}

const MARKER = /^<!--\s*(check|skip):(.*?)-->\s*$/;

/** The marker on the nearest non-blank line above `index`, if that line is a marker. */
function markerAbove(lines: readonly string[], index: number): BlockMarker {
  let i = index - 1;
  while (i >= 0 && lines[i]!.trim() === '') i--;
  const match = i >= 0 ? MARKER.exec(lines[i]!.trim()) : null;
  if (match === null) return { kind: 'none' };
  const text = match[2]!.trim();
  return match[1] === 'check' ? { kind: 'check', spec: text } : { kind: 'skip', reason: text };
}

/** Every fenced block of a page, with the marker above it. */
export function fencedBlocks(page: DocPage): FencedBlock[] {
  const blocks: FencedBlock[] = [];
  const { lines } = page;
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    if (i >= lines.length) throw new Error(`${page.path}:${start + 1}: code block never closed`);
    blocks.push({
      page: page.path,
      line: start + 1,
      language: open[1]!,
      body,
      marker: markerAbove(lines, start),
    });
  }
  return blocks;
}

/** The page's lines outside fenced blocks, with their 1-based numbers. */
export function proseLines(page: DocPage): { readonly line: number; readonly text: string }[] {
  const out: { line: number; text: string }[] = [];
  let inBlock = false;
  page.lines.forEach((text, i) => {
    if (/^```/.test(text)) inBlock = !inBlock;
    else if (!inBlock) out.push({ line: i + 1, text });
  });
  return out;
}

/**
 * The anchors GitHub gives a page's headings: lower case, punctuation but `-` and `_` dropped,
 * spaces as `-`, a repeated one suffixed `-1`, `-2`, … (github-slugger's rules).
 */
export function headingAnchors(page: DocPage): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of proseLines(page)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading === null) continue;
    const base = heading[1]!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Inline Markdown links `[text](target)` outside code, with their line numbers. */
export function links(page: DocPage): { readonly line: number; readonly target: string }[] {
  const out: { line: number; target: string }[] = [];
  for (const { line, text } of proseLines(page)) {
    const withoutCode = text.replace(/`[^`]*`/g, '``');
    for (const m of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) out.push({ line, target: m[1]! });
  }
  return out;
}
