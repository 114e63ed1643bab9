import { execFileSync } from 'node:child_process';

/**
 * Font families fontconfig knows (what Chromium prints with on Linux). A theme's font that is not
 * installed would silently fall back to Liberation Sans: `reportd check` refuses it instead.
 * Undefined when `fc-list` is not there to ask (then the font is not checked).
 */
export function installedFontFamilies(): Set<string> | undefined {
  let out: string;
  try {
    out = execFileSync('fc-list', [':', 'family'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
  const families = new Set<string>();
  for (const line of out.split('\n')) {
    // One font per line; a font with localised names lists them comma-separated.
    for (const name of line.split(',')) if (name.trim()) families.add(name.trim().toLowerCase());
  }
  return families;
}
