import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { documentationPages, headingAnchors, links } from './markdown';

/**
 * The docs hold together: README.md stays a front page, every relative link between the pages
 * points at a file that exists and, with a `#`, at one of its headings, and no page names a
 * path of the machine it was written on.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const pages = documentationPages(ROOT);

describe('the documentation pages', () => {
  it('keep README.md under 250 lines', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThan(250);
  });

  it('link only to files and headings that exist', () => {
    const anchorsOf = new Map(pages.map((p) => [p.path, headingAnchors(p)]));
    const broken: string[] = [];
    for (const page of pages) {
      for (const { line, target } of links(page)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [file = '', anchor] = target.split('#');
        const path = file === '' ? page.path : normalize(join(dirname(page.path), file));
        if (!existsSync(join(ROOT, path))) broken.push(`${page.path}:${line}: ${target} (no file ${path})`);
        else if (anchor !== undefined && path.endsWith('.md')) {
          const anchors = anchorsOf.get(path);
          if (anchors !== undefined && !anchors.has(anchor))
            broken.push(`${page.path}:${line}: ${target} (no heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('name no machine paths', () => {
    const local = pages.flatMap((p) =>
      p.lines.flatMap((text, i) => (/\/work\/|\/home\/|\/root\//.test(text) ? [`${p.path}:${i + 1}`] : [])),
    );
    expect(local).toEqual([]);
  });
});
