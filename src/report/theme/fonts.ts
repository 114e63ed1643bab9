/**
 * Font families fontconfig knows (what Chromium prints with on Linux). A theme's font that is not
 * installed would silently fall back to Liberation Sans: `reportd check` refuses it instead.
 * Undefined when `fc-list` is not there to ask (then the font is not checked).
 */
export function installedFontFamilies(): Set<string> | undefined {
  let out: string;
  try {
    // Looked up here, not imported: child_process (and net, dgram under it) costs `reportd check` a
    // few ms to load, and only a config with a theme font asks fontconfig.
    const { execFileSync } = process.getBuiltinModule('node:child_process');
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
