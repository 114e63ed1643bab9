import { statSync } from 'node:fs';
import { FONT_NAME, HEX_COLOR } from '../../config/theme-section.js';
import { ThemeError } from '../../errors/index.js';
import { THEME } from '../charts/svg.js';
import { drawLogo, type Logo } from './logo.js';

/**
 * A report's look (`reports[].theme`): logo, colours, font, cover title and footer. Templates read it
 * as data (`theme.*` in the view model, CSS variables in `theme.css`); nothing here is markup a user
 * wrote, so it cannot break out of the style block: colours are `#RRGGBB` and font names are letters,
 * digits, spaces and dashes (both checked by the config schema, and again here).
 */
export interface ThemeConfig {
  /** Absolute path after the config is loaded. */
  logo?: string;
  primary?: string;
  accent?: string;
  positive?: string;
  negative?: string;
  font?: string;
  cover_title?: string;
  footer?: string;
  logo_alt?: string;
}

/** What templates, the email and the workbook read. */
export interface ThemeView {
  /** The logo as reportd drew it: a PNG, whatever the file was (logo.ts). */
  logo?: Logo;
  primary: string;
  accent: string;
  positive: string;
  negative: string;
  /** The CSS `font-family` list, the theme's font first. */
  fontFamily: string;
  coverTitle?: string;
  footer?: string;
  /** The logo's alternative text (`logo_alt`); templates fall back to the locale's "Logo". */
  logoAlt?: string;
  /** `:root { --primary: …; … }` for the printed document: empty when nothing is themed. */
  css: string;
}

const FALLBACK_FONTS = "'Liberation Sans', 'DejaVu Sans', Arial, sans-serif";

/** The built-in look: the colours report.css and the charts use when no theme says otherwise. */
export const DEFAULT_THEME: ThemeView = {
  primary: THEME.primary,
  accent: THEME.secondary,
  positive: THEME.good,
  negative: THEME.bad,
  fontFamily: FALLBACK_FONTS,
  css: '',
};

const colorOr = (value: string | undefined, fallback: string) =>
  value !== undefined && HEX_COLOR.test(value) ? value : fallback;

/**
 * The theme as templates read it. The logo is loaded here, at render time, so an edited logo file shows
 * in the next render (and in the studio at once); `where` names it in errors (`reports[0].theme.logo`).
 */
export async function themeView(config: ThemeConfig | undefined, where = 'theme'): Promise<ThemeView> {
  if (!config) return DEFAULT_THEME;
  const logo = config.logo === undefined ? undefined : await cachedLogo(config.logo, `${where}.logo`);
  const font = config.font !== undefined && FONT_NAME.test(config.font) ? config.font : undefined;
  const view = {
    primary: colorOr(config.primary, DEFAULT_THEME.primary),
    accent: colorOr(config.accent, DEFAULT_THEME.accent),
    positive: colorOr(config.positive, DEFAULT_THEME.positive),
    negative: colorOr(config.negative, DEFAULT_THEME.negative),
    fontFamily: font ? `'${font}', ${FALLBACK_FONTS}` : FALLBACK_FONTS,
  };
  // Only what the theme sets is overridden: the stylesheet's own values stay in force otherwise,
  // so an author editing report.css sees their change unless the report's theme says otherwise.
  const vars = [
    config.primary && `--primary: ${view.primary};`,
    config.accent && `--accent: ${view.accent};`,
    config.positive && `--good: ${view.positive};`,
    config.negative && `--bad: ${view.negative};`,
    font && `--font: ${view.fontFamily};`,
  ].filter(Boolean);
  const css =
    vars.length === 0
      ? ''
      : `:root { ${vars.join(' ')} }${font ? ` body { font-family: ${view.fontFamily}; }` : ''}`;
  return {
    ...view,
    ...(logo ? { logo } : {}),
    ...(config.cover_title ? { coverTitle: config.cover_title } : {}),
    ...(config.footer ? { footer: config.footer } : {}),
    ...(config.logo_alt ? { logoAlt: config.logo_alt } : {}),
    css,
  };
}

/**
 * Logos by path, loaded again when the file's size or time changes (a daemon renders the same logo
 * weekly). A refusal is kept too: a file that took the renderer's whole time limit is not drawn again
 * at every render, only once it changes.
 */
const logos = new Map<string, { stamp: string; logo: Promise<Logo | string> }>();

/** The logo at `path` (loaded, or as last loaded); a refusal is a `ThemeError` naming `where`. */
export async function cachedLogo(path: string, where: string): Promise<Logo> {
  let stamp = '';
  try {
    const stat = statSync(path);
    stamp = `${stat.size}:${stat.mtimeMs}`;
  } catch {
    // readLogo says the file is missing
  }
  let hit = logos.get(path);
  if (!hit || hit.stamp !== stamp) {
    hit = { stamp, logo: drawLogo(path) };
    logos.set(path, hit);
  }
  const logo = await hit.logo;
  if (typeof logo === 'string') throw new ThemeError(`${where}: ${logo}`);
  return logo;
}

/** The logo as templates see it: the PNG's `data:` URL and its type, nothing else. */
export function templateLogo(logo: Logo | undefined): { type: string; dataUrl: string } | undefined {
  return logo && { type: logo.type, dataUrl: logo.dataUrl };
}

/** `#1F4E79` → `FF1F4E79`, the ARGB exceljs writes. */
export const argb = (hex: string) => `FF${hex.slice(1).toUpperCase()}`;
