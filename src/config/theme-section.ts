import { z } from 'zod';

/**
 * `reports[].theme` and `reports[].templates`: one report's look, so one daemon can send each client's
 * report in that client's colours and logo. The logo file itself is checked by `reportd check` (and
 * drawn again when it changes, so an edited logo shows in the next render).
 */

/** Largest logo embedded (bytes): every page of the PDF and every email carries it. */
export const MAX_LOGO_BYTES = 256 * 1024;
/** A theme colour: `#RRGGBB` (checked here and again where the CSS is written, report/theme/theme.ts). */
export const HEX_COLOR = /^#[0-9A-Fa-f]{6}$/;
/** A font family name: letters, digits, spaces, dashes, so it cannot leave the style block. */
export const FONT_NAME = /^[A-Za-z0-9][A-Za-z0-9 _-]{0,62}$/;

const color = (what: string, fallback: string) =>
  z
    .string()
    .regex(HEX_COLOR, { error: 'expected a colour like #1F4E79' })
    .optional()
    .describe(`${what} (#RRGGBB). Default ${fallback}.`);

export const reportTheme = z
  .strictObject({
    logo: z
      .string()
      .min(1)
      .optional()
      .describe(
        `Logo printed on the cover, at the top of the email and on the workbook's About sheet: a PNG, JPEG or SVG file, relative to the config file, at most ${MAX_LOGO_BYTES / 1024} KB. It is shipped as a PNG reportd draws itself, fitting 1200 × 400 pixels: a PNG or JPEG is decoded and encoded again, an SVG is drawn by resvg (no script runs, nothing is fetched). An SVG that refers to files or addresses outside itself, or expands past 20,000 nodes, is refused by \`reportd check\`. Default none.`,
      ),
    primary: color(
      "Main colour: the cover band, headings, the email's band and the workbook's titles",
      '#1F4E79',
    ),
    accent: color('Second colour (the CSS variable --accent)', '#4F8FC0'),
    positive: color('Colour of good changes', '#1B7F5B'),
    negative: color('Colour of bad changes', '#C8453B'),
    font: z
      .string()
      .regex(FONT_NAME, { error: 'expected a font family name (letters, digits, spaces, dashes)' })
      .optional()
      .describe(
        'Font family of the document, one installed on the machine that prints (`fc-list : family`; `reportd check` refuses one that is not). Default Liberation Sans.',
      ),
    cover_title: z
      .string()
      .min(1)
      .max(120)
      .optional()
      .describe(
        'Line above the brand on the cover and in the email, instead of "AI visibility report" (text, at most 120 characters). Default: the locale\'s.',
      ),
    footer: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe(
        "Text in every PDF page's footer and at the end of the email, e.g. the agency's name (at most 200 characters). Default none.",
      ),
    logo_alt: z
      .string()
      .min(1)
      .max(120)
      .optional()
      .describe(
        'What a screen reader says for the logo (its alternative text in the PDF and the email), e.g. the agency\'s name (at most 120 characters). Default: the locale\'s word for "Logo".',
      ),
  })
  .optional()
  .describe("This report's look: logo, colours, font, cover title and footer. Default: reportd's own look.");

export const reportTemplates = z
  .strictObject({
    dir: z
      .string()
      .min(1)
      .optional()
      .describe(
        "This report's copy of the templates/ folder, relative to the config file; overrides the top-level templates.dir for this report (files missing there come from the built-ins). Default: the top-level templates.dir.",
      ),
  })
  .optional()
  .describe("This report's own templates. Default: the top-level `templates`.");
