/**
 * The frame every reportd email is laid out in (reports, digests, alerts, failure notices), as
 * MJML's `mj-body`/`mj-column` output and Maizzle's layouts build it, so each client gets a layout
 * it can read:
 *
 * - a fluid card: a 100 % wide table capped by `max-width: 600px`, so a phone (or 400 % zoom, WCAG
 *   SC 1.4.10) gets the card at its own width with no sideways scroll;
 * - for Outlook on Windows (Word's engine ignores `max-width`), the card inside a fixed 600-pixel
 *   table written only for it between `<!--[if mso]>` comments;
 * - a viewport meta so phones do not lay the message out at a desktop width and zoom it out;
 * - `color-scheme` / `supported-color-schemes` (meta and CSS) and a `prefers-color-scheme: dark`
 *   block that swaps the few colours by class: clients that honour it (Apple Mail, Outlook.com,
 *   Outlook for Mac and phones) show our dark palette, those that invert on their own (Gmail's apps)
 *   invert colours chosen to stay readable either way (mid-dark text on light grey and white, no
 *   text colour that only works on one background);
 * - padding on table cells, never on `<p>` or `<a>` (Outlook drops both).
 *
 * Class names are letters, digits and hyphens only: Gmail drops a whole rule whose selector has an
 * escaped character. Every colour is also inline, so a client that drops `<style>` keeps the light look.
 */

/** The card's widest width (CSS px): Outlook's fixed table and the fluid card's `max-width`. */
export const EMAIL_WIDTH = 600;

/** The light palette (inline) and what the dark block turns it into. */
export const EMAIL_COLOURS = {
  page: { light: '#f4f5f7', dark: '#121417' },
  card: { light: '#ffffff', dark: '#1c2127' },
  text: { light: '#1f2933', dark: '#e4e7eb' },
  muted: { light: '#52606d', dark: '#b3bcc5' },
  faint: { light: '#616e7c', dark: '#a3adb8' },
  rule: { light: '#d9dee3', dark: '#3a424c' },
} as const;

type Role = keyof typeof EMAIL_COLOURS;

/** The class that gives an element the dark colour of `role` (`rd-text`, `rd-card`…). */
const cls = (role: Role) => `rd-${role}`;

/**
 * The dark block. `!important` because the light colours are inline; backgrounds, text and rules
 * each by their own class so an element opts into exactly what it has.
 */
function darkCss(): string {
  const rules = [
    `.${cls('page')}{background-color:${EMAIL_COLOURS.page.dark}!important}`,
    `.${cls('card')}{background-color:${EMAIL_COLOURS.card.dark}!important}`,
    `.${cls('text')}{color:${EMAIL_COLOURS.text.dark}!important}`,
    `.${cls('muted')}{color:${EMAIL_COLOURS.muted.dark}!important}`,
    `.${cls('faint')}{color:${EMAIL_COLOURS.faint.dark}!important}`,
    `.${cls('rule')}{border-color:${EMAIL_COLOURS.rule.dark}!important}`,
    // The headline tables' cells are the change cells' own markup (arrows, colours, intervals): they
    // are reached from their table, and take the dark text; the direction is in their words too.
    `.rd-kpis th,.rd-kpis td{color:${EMAIL_COLOURS.text.dark}!important;border-color:${EMAIL_COLOURS.rule.dark}!important}`,
    `.rd-kpis span{color:${EMAIL_COLOURS.faint.dark}!important}`,
  ];
  return `@media (prefers-color-scheme: dark){${rules.join('')}}`;
}

/** Escapes text for HTML content and attributes (subjects and API text are untrusted). */
export const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The document up to the card's first row: doctype, `<head>` (viewport, colour schemes, the dark
 * block, Outlook's 96 dpi setting so its widths are pixels) and the page and card tables.
 */
export function emailOpen(options: { lang: string; title: string }): string {
  const { page, card, text } = EMAIL_COLOURS;
  return [
    '<!doctype html>',
    `<html lang="${escapeHtml(options.lang)}" xmlns:v="urn:schemas-microsoft-com:vml" xmlns:o="urn:schemas-microsoft-com:office:office">`,
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="x-apple-disable-message-reformatting">',
    '<meta name="color-scheme" content="light dark">',
    '<meta name="supported-color-schemes" content="light dark">',
    `<title>${escapeHtml(options.title)}</title>`,
    '<!--[if mso]><noscript><xml><o:OfficeDocumentSettings><o:PixelsPerInch>96</o:PixelsPerInch></o:OfficeDocumentSettings></xml></noscript><![endif]-->',
    `<style>:root{color-scheme:light dark;supported-color-schemes:light dark}${darkCss()}</style>`,
    '</head>',
    `<body class="${cls('page')}" style="margin:0;padding:0;background-color:${page.light};">`,
    `<table role="presentation" class="${cls('page')}" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;background-color:${page.light};">`,
    '<tr><td align="center" style="padding:16px 8px;">',
    `<!--[if mso]><table role="presentation" align="center" width="${EMAIL_WIDTH}" cellpadding="0" cellspacing="0" border="0"><tr><td width="${EMAIL_WIDTH}"><![endif]-->`,
    `<table role="presentation" class="${cls('card')}" width="100%" cellpadding="0" cellspacing="0" border="0" style="width:100%;max-width:${EMAIL_WIDTH}px;background-color:${card.light};font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;color:${text.light};">`,
  ].join('\n');
}

/** Closes what `emailOpen` opened. */
export function emailClose(): string {
  return [
    '</table>',
    '<!--[if mso]></td></tr></table><![endif]-->',
    '</td></tr>',
    '</table>',
    '</body>',
    '</html>',
  ].join('\n');
}

/**
 * One row of the card: its padding on the cell (Outlook drops it on `<p>`), its text in `role`'s
 * colour, inline for the light look and by class for the dark one. `inner` is HTML, already escaped.
 */
export function cardRow(
  inner: string,
  role: 'text' | 'muted' | 'faint' = 'text',
  padding = '8px 16px',
): string {
  return `<tr><td class="${cls(role)}" style="padding:${padding};font-size:14px;line-height:1.5;color:${EMAIL_COLOURS[role].light};">${inner}</td></tr>`;
}

/** The `class` and `style` attributes of an element in the muted colour, `style` first in its rule. */
export function mutedText(style: string): string {
  return `class="${cls('muted')}" style="${style}color:${EMAIL_COLOURS.muted.light};"`;
}

/** What the report templates read as `layout`: the frame and the class names of the palette. */
export function templateLayout(options: { lang: string; title: string }) {
  return {
    open: emailOpen(options),
    close: emailClose(),
    width: EMAIL_WIDTH,
    colours: Object.fromEntries(Object.entries(EMAIL_COLOURS).map(([role, c]) => [role, c.light])),
  };
}
