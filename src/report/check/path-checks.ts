import { accessSync, constants, statSync } from 'node:fs';
import type { Config } from '../../config/schema.js';
import type { ConfigIssue } from '../../errors/index.js';
import { installedFontFamilies } from '../theme/fonts.js';

/**
 * Paths the config names that only matter when something renders: `reportd check` refuses them
 * when they cannot work, so a typo shows up at setup rather than at the first scheduled report.
 * (Loading the config does not, so `sync` runs on a machine without the browser.)
 */
export async function pathIssues(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  const dir = config.templates.dir;
  if (dir !== undefined) {
    const kind = kindOf(dir);
    if (kind !== 'dir') {
      issues.push({
        path: 'templates.dir',
        message: kind === 'none' ? `${dir} does not exist` : `${dir} is not a folder`,
      });
    }
  }
  issues.push(...(await reportLookIssues(config)));
  const chromium = config.chromium.path;
  // REPORTD_CHROMIUM overrides the config; then chromium.path is never used.
  if (chromium !== undefined && !env.REPORTD_CHROMIUM) {
    const kind = kindOf(chromium);
    if (kind === 'none') issues.push({ path: 'chromium.path', message: `${chromium} does not exist` });
    else if (kind !== 'file' || !executable(chromium)) {
      issues.push({ path: 'chromium.path', message: `${chromium} is not an executable file` });
    }
  }
  return issues;
}

/**
 * Each report's own template folder, logo and font: what its render would fail or fall back on. A
 * logo is loaded as a render loads it (drawn, for an SVG), so what `check` passes renders.
 */
async function reportLookIssues(config: Config): Promise<ConfigIssue[]> {
  const issues: ConfigIssue[] = [];
  let fonts: Set<string> | undefined | null = null;
  // Logos load side by side (an SVG is drawn in a child process): one slow file does not hold the rest.
  const logos = config.reports.map(async (report, index): Promise<ConfigIssue | undefined> => {
    const logo = report.theme?.logo;
    if (logo === undefined) return undefined;
    const path = `reports[${index}].theme.logo`;
    // Loaded only for a config with a logo: the image decoders and the SVG rasteriser are most of
    // what `reportd check` would otherwise load beyond the config itself.
    const { cachedLogo } = await import('../theme/theme.js');
    // The message starts with the path; the issue carries it on its own.
    return cachedLogo(logo, path).then(
      () => undefined,
      (error: Error) => ({ path, message: error.message.replace(`${path}: `, '') }),
    );
  });
  config.reports.forEach((report, index) => {
    const dir = report.templates?.dir;
    if (dir !== undefined && kindOf(dir) !== 'dir') {
      const kind = kindOf(dir);
      issues.push({
        path: `reports[${index}].templates.dir`,
        message: kind === 'none' ? `${dir} does not exist` : `${dir} is not a folder`,
      });
    }
    const font = report.theme?.font;
    if (font !== undefined) {
      if (fonts === null) fonts = installedFontFamilies();
      if (fonts && !fonts.has(font.toLowerCase())) {
        issues.push({
          path: `reports[${index}].theme.font`,
          message: `font family "${font}" is not installed (fc-list : family lists those that are)`,
        });
      }
    }
  });
  for (const issue of await Promise.all(logos)) if (issue) issues.push(issue);
  return issues;
}

function kindOf(path: string): 'none' | 'dir' | 'file' | 'other' {
  try {
    const stat = statSync(path);
    return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
  } catch {
    return 'none';
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
