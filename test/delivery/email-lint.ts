import { DoIUseEmail, doIUseEmail } from '@jsx-email/doiuse-email';

/**
 * What the email gate (email-clients.test.ts) checks in a message's HTML without a browser: the
 * caniemail data (through @jsx-email/doiuse-email) for the clients our readers use, the size budget,
 * the images, and the Outlook widths of the hybrid layout. Each check answers with lines that say
 * what is wrong, empty when nothing is.
 */

/**
 * The clients, as caniemail names them: Outlook on Windows (Word's engine), Outlook.com, Gmail on the
 * web, Android and iOS, Apple Mail on macOS and iOS, Yahoo on the web. doiuse-email's own list has no
 * Outlook.com, though the data it ships has it; it is added to the linter's clients below.
 */
export const CLIENTS = [
  'outlook.windows',
  'gmail.desktop-webmail',
  'gmail.android',
  'gmail.ios',
  'apple-mail.macos',
  'apple-mail.ios',
  'yahoo.desktop-webmail',
] as const;
const OUTLOOK_COM = 'outlook.outlook-com';

/**
 * Features a client does not support that we use on purpose: each degrades to something readable
 * there, and is what the layout needs everywhere else. Matched against the linter's message.
 */
export const ALLOWED: readonly { feature: string; clients: readonly string[]; why: string }[] = [
  {
    feature: '@media',
    clients: ['outlook.windows'],
    why: 'the dark-mode block only: Outlook on Windows keeps the inline light colours, which are the defaults',
  },
  {
    feature: 'aria-hidden attribute',
    clients: ['yahoo.desktop-webmail'],
    why: "the alert chart's bars (empty cells) are hidden from screen readers; where Yahoo drops the attribute a reader meets an empty cell, and the value is written beside it",
  },
  {
    feature: 'aria-label attribute',
    clients: ['yahoo.desktop-webmail'],
    why: 'a change cell says its direction in words to screen readers ("down 8.3 points, likely change, worse"); where Yahoo drops the label, the cell still reads its signed value and, on a likely change, "better" or "worse" in visible text',
  },
];

/** The linter's unsupported features for our clients, less the allowlist. */
export function unsupported(html: string): string[] {
  const result = lint(html);
  const errors = result.success ? [] : result.errors;
  return errors.filter(
    (message) =>
      !ALLOWED.some(
        (entry) =>
          message.startsWith(`\`${entry.feature}\` is not supported by`) &&
          entry.clients.some((client) => message.endsWith(`\`${client}\``)),
      ),
  );
}

function lint(html: string) {
  // Outlook.com is in the data but not in the package's list of names: check it as an extra client.
  const withOutlookCom = doIUseEmail(html, { emailClients: [...CLIENTS] });
  const comOnly = doIUseEmailFor(html, OUTLOOK_COM);
  if (withOutlookCom.success && comOnly.length === 0) return withOutlookCom;
  return {
    success: false as const,
    errors: [...(withOutlookCom.success ? [] : withOutlookCom.errors), ...comOnly],
  };
}

/** The linter's errors for one client it has data for but no name in its list. */
function doIUseEmailFor(html: string, client: string): string[] {
  // The class takes any client once constructed: its check reads `emailClients` per feature.
  const linter = new DoIUseEmail({ emailClients: ['outlook.windows'] });
  linter.emailClients = [client as never];
  try {
    const result = linter.check(html);
    return result.success ? [] : result.errors;
  } catch (error) {
    // A feature with no data for this client: not a finding about our HTML.
    if (/not found on/.test((error as Error).message)) return [];
    throw error;
  }
}

/** Gmail clips a message's HTML past 102 KB; we stay under 82 KB so a long digest has room. */
export const HTML_BUDGET_BYTES = 82 * 1024;

/**
 * What the layout itself must hold: no SVG, no `data:` URL, class names Gmail keeps (letters, digits,
 * hyphens: it drops a rule whose selector escapes a character), every image sized and described, and
 * for each fluid table capped by `max-width` an Outlook-only table of a fixed width around it, each
 * of whose tables and cells has a pixel `width` (Word's engine ignores `max-width`).
 */
export function layoutProblems(html: string): string[] {
  const problems: string[] = [];
  if (/<svg[\s>]/i.test(html)) problems.push('an <svg> element');
  if (/data:/i.test(html)) problems.push('a data: URL');
  for (const [, names] of html.matchAll(/\sclass="([^"]*)"/g))
    for (const name of names!.split(/\s+/).filter(Boolean))
      if (!/^[A-Za-z][A-Za-z0-9-]*$/.test(name)) problems.push(`class name "${name}" Gmail would drop`);
  for (const [img] of html.matchAll(/<img\b[^>]*>/gi))
    for (const attribute of ['width', 'height', 'alt'])
      if (!new RegExp(`\\s${attribute}="[^"]*"`).test(img))
        problems.push(`<img> without ${attribute}: ${img}`);
  const ghosts = [...html.matchAll(/<!--\[if mso\]>([\s\S]*?)<!\[endif\]-->/g)].map((m) => m[1]!);
  for (const ghost of ghosts)
    for (const [tag] of ghost.matchAll(/<(table|td)\b[^>]*>/gi))
      if (!/\swidth="\d+"/.test(tag)) problems.push(`Outlook's ${tag} has no pixel width`);
  const fluid = [...html.matchAll(/<table\b[^>]*max-width:\s*\d+px[^>]*>/gi)].length;
  const fixed = ghosts.filter((ghost) => /<table\b[^>]*\swidth="\d+"/.test(ghost)).length;
  if (fixed < fluid)
    problems.push(`${fluid} fluid tables with max-width, ${fixed} Outlook tables of fixed width`);
  return problems;
}
