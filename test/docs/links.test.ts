import { existsSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { headingAnchors, linkTargets, pages, readPage, root } from './pages.js';

/**
 * The docs hold together: every relative link of the README and of docs/ reaches a file of the
 * repository, every `#anchor` (on the same page or on `page.md#anchor`) is the GitHub slug of a
 * heading of that page, every docs/ page names its audience in its first line and is linked from the
 * README, and the README stays a front door.
 */

const all = pages();

/** Every broken relative link of one page, as `page: target (why)`. */
function brokenLinks(path: string, text: string): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: — not a file of ours
    const [file, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved =
      file === ''
        ? path
        : normalize(join(dirname(path), decodeURI(file)))
            .split('\\')
            .join('/');
    if (resolved.startsWith('..') || !existsSync(join(root, resolved))) {
      problems.push(`${path}: ${target} (no file ${resolved})`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!resolved.endsWith('.md') || statSync(join(root, resolved)).isDirectory()) {
      problems.push(`${path}: ${target} (an anchor on a file that is not a page)`);
      continue;
    }
    if (!headingAnchors(readPage(resolved)).has(anchor)) {
      problems.push(`${path}: ${target} (no heading of ${resolved} has the anchor #${anchor})`);
    }
  }
  return problems;
}

describe('README and docs/', () => {
  it('link only to files and headings that exist', () => {
    expect(all.length).toBeGreaterThan(10);
    expect(all.flatMap((page) => brokenLinks(page.path, page.text))).toEqual([]);
  });

  it('catch a broken file, a broken anchor and an anchor that is not a slug', () => {
    const page = 'docs/example.md';
    expect(brokenLinks(page, 'see [x](nope.md) and [y](../README.md#quick-start)')).toEqual([
      'docs/example.md: nope.md (no file docs/nope.md)',
    ]);
    expect(brokenLinks(page, '[a](operations.md#no-such-heading)')).toHaveLength(1);
    // GitHub drops the colon and the backticks, keeps the underscore: not "One email per report:".
    expect(brokenLinks(page, '[a](reports-and-templates.md#one-email-per-report:-the-digest)')).toHaveLength(
      1,
    );
    expect(brokenLinks(page, '[a](reports-and-templates.md#one-email-per-report-the-digest)')).toEqual([]);
    expect(brokenLinks('README.md', '[b](#who-reads-what) [c](docs/reference/config.md#reports)')).toEqual(
      [],
    );
    // A link inside code is not a link.
    expect(brokenLinks(page, '`[x](nope.md)`\n\n```md\n[y](nope.md)\n```\n')).toEqual([]);
  });

  it('give GitHub slugs to headings, numbering repeats', () => {
    const anchors = headingAnchors(
      '# A `max_delay`, or: 2 things!\n## Same\n## Same\n```sh\n# not a heading\n```\n### [Linked](x.md) *too*\n',
    );
    expect([...anchors]).toEqual(['a-max_delay-or-2-things', 'same', 'same-1', 'linked-too']);
  });

  it('name their audience in the first line of every docs/ page', () => {
    const unnamed = all
      .filter((page) => page.path.startsWith('docs/'))
      .filter((page) => !/^\*For [^*\n]+\*$/.test(page.text.split('\n', 1)[0]!))
      .map((page) => page.path);
    expect(unnamed).toEqual([]);
  });

  it('reach every docs/ page from the README', () => {
    const readme = all[0]!;
    expect(readme.path).toBe('README.md');
    const linked = new Set(linkTargets(readme.text).map((target) => target.split('#', 1)[0]!));
    const orphans = all
      .filter((page) => page.path.startsWith('docs/'))
      .map((page) => page.path)
      .filter((path) => !linked.has(path));
    expect(orphans).toEqual([]);
  });

  it('keep the README a front door of at most 250 lines', () => {
    expect(readPage('README.md').trimEnd().split('\n').length).toBeLessThanOrEqual(250);
  });
});
