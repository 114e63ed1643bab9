import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The documentation as the tests read it: README.md (the front door) and every page under docs/.
 * `docs/drafts/` is left out: drafts are texts engineers hand to the integrator, not pages yet.
 */

export const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

export interface Page {
  /** Path from the repository root, with `/` separators: `README.md`, `docs/reference/cli.md`. */
  path: string;
  text: string;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'drafts' ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** README.md first, then the docs/ pages in path order. */
export function pages(): Page[] {
  const docs = markdownFiles(join(root, 'docs'))
    .map((path) => relative(root, path).split('\\').join('/'))
    .sort();
  return ['README.md', ...docs].map((path) => ({ path, text: readPage(path) }));
}

export function readPage(path: string): string {
  return readFileSync(join(root, path), 'utf8');
}

/** The text without fenced code blocks and inline code spans, where links and headings are not. */
export function prose(text: string): string {
  return text.replace(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '');
}

/**
 * The anchors GitHub gives a page's headings: the heading's text without markup, lower-cased, every
 * character that is not a letter, mark, digit, connector (`_`), space or hyphen dropped, spaces made
 * hyphens; a repeated slug gets `-1`, `-2`… (github-slugger).
 */
export function headingAnchors(text: string): Set<string> {
  const withoutCode = text.replace(/^[ \t]*(```|~~~)[^\n]*\n[\s\S]*?^[ \t]*\1[^\n]*$/gm, '');
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of withoutCode.matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const plain = match[1]!
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .replace(/`/g, '');
    const base = plain
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

/** Markdown link and image targets of the prose (not of code), as written. */
export function linkTargets(text: string): string[] {
  return [...prose(text).matchAll(/\]\(<?([^)\s>]+)>?(?:\s+"[^"]*")?\)/g)].map((m) => m[1]!);
}
