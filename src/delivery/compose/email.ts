import { existsSync, statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import Handlebars from 'handlebars';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { RecipientRow } from '../../config/recipient-fields.js';
import type { SubjectVariables } from '../../config/subject-template.js';
import { catalogStamp, readCatalogOverrides } from '../../locale/catalog-files.js';
import { registerLocaleHelpers } from '../../locale/helpers.js';
import { type ReportLocale, reportLocale, withLocale } from '../../locale/locale.js';
import { readUnder } from '../../locale/template-file.js';
import { headerText } from '../../printable.js';
import { packagedTemplate, TEMPLATE_OPTIONS } from '../../report/packaged-templates.js';
import { PACKAGED_TEMPLATES_DIR } from '../../report/templates.js';
import { type ThemeConfig, templateLogo, themeView } from '../../report/theme/theme.js';
import { attachmentName, type EmailContent } from '../content.js';
import type { LinksView } from '../sent-files.js';
import { templateLayout } from './email-layout.js';

/** The email part of a report's config (`reports[].email` plus the attachment cap). */
export interface ReportEmailConfig {
  name: string;
  /** Absent for a report delivered through channels only. Subject: the locale's default when absent. */
  email?: {
    to: string[];
    cc?: string[];
    bcc?: string[];
    subject?: string;
    /** `files` (default), `links`, or `auto` (links when the files exceed `max_attachment_mb`). */
    attach?: 'files' | 'links' | 'auto';
    /** The s3 channel links point into. */
    links_from?: string;
    /** How long links work ("7d"). */
    link_expiry?: string;
  };
  /** `reports[].timezone`: the zone the links' "until" is written in (default UTC). */
  timezone?: string;
  /** Names of `channels[]` entries that get the report too (one outbox row each). */
  channels?: readonly string[];
  max_attachment_mb?: number;
  /** `reports[].locale`: the language of the subject default, the body and its numbers. */
  locale?: string;
  /** `reports[].theme`: the band's colour, the logo, the title line and the footer. */
  theme?: ThemeConfig;
  /** `reports[].templates.dir`: this report's templates over the global folder. */
  templates?: { dir?: string };
  /** `reports[].recipients`: one reader per row, each row its own destination (recipients.ts). */
  recipients?: readonly RecipientRow[];
}

export interface ComposeOptions {
  from: string;
  report: ReportEmailConfig;
  content: EmailContent;
  /** Fixed per delivery (see src/outbox/delivery-id.ts) so a resend carries the same id. */
  messageId: string;
  /** A user copy of templates/ (config `templates.dir`); its `email/` files win over the built-ins. */
  templatesDir?: string;
  date?: Date;
  /** The files as links (email-links.ts): then nothing is attached. */
  links?: LinksView;
  /** A recipient table's reader: `{{recipient.name}}` in the subject, the body and the file names. */
  recipient?: { name: string };
}

/** The From of every message: `smtp.from`, or a placeholder a preview without smtp shows. */
export function senderOf(config: { smtp?: { from: string } | undefined }): string {
  return config.smtp?.from ?? 'reportd <reportd@localhost>';
}

/**
 * Sets a digest email shows in full (story, table, intervals, note); past it, one short block each,
 * so that a digest of 80 sets stays under the 82 KB budget (Gmail clips at 102 KB).
 */
export const DIGEST_FULL_SETS = 12;

/** Content-ID of the theme's logo in a report email. */
const LOGO_CID = 'logo@reportd';
const BUILTIN = join(PACKAGED_TEMPLATES_DIR, 'email');
const MIME: Record<string, string> = {
  pdf: 'application/pdf',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** Builds the message: subject, HTML + text bodies, attachments within the size cap. */
export async function composeEmail(options: ComposeOptions): Promise<Mail.Options> {
  const { report, content } = options;
  const locale = reportLocale(report.locale);
  const email = report.email;
  if (!email) throw new Error(`report "${report.name}" has no email section`);
  // A reader of a recipient table: {{recipient.name}} in the subject and body, their name in file names.
  const recipient = options.recipient ?? { name: '' };
  const vars = { ...subjectVariables(report, content), recipient };
  const subject = emailSubject(email.subject, report.name, content, vars, locale);
  const named = recipient.name === '' ? report : { ...report, name: `${report.name} ${recipient.name}` };
  const { attachments, attached, notes } = options.links
    ? { attachments: [] as Mail.Attachment[], attached: [] as string[], notes: [] as string[] }
    : await fileAttachments(named, content, locale);

  const { logo, ...theme } = await themeView(report.theme, `report "${report.name}" theme`);
  // The logo travels as an inline PNG part (cid:), which mail clients show; most refuse data: URLs
  // and SVG alike. It is the PNG reportd drew (theme/logo.ts), never the author's file, scaled to
  // the email's slot (email-logo.ts, loaded with its decoders only for a theme with a logo).
  const shown = logo && (await import('./email-logo.js')).emailLogo(logo);
  if (shown) {
    attachments.push({
      cid: LOGO_CID,
      content: shown.png,
      contentType: 'image/png',
      contentDisposition: 'inline',
    });
  }
  const view = {
    ...vars,
    theme: {
      ...theme,
      ...(logo ? { logo: templateLogo(logo) } : {}),
      logoSrc: shown ? `cid:${LOGO_CID}` : undefined,
      logoWidth: shown?.width,
      logoHeight: shown?.height,
    },
    layout: templateLayout({ lang: locale.tag, title: subject }),
    subject,
    querySet: content.querySet.name,
    // Ids as text: a number in a message would be grouped like a quantity ("12,345").
    querySetId: String(content.querySet.id),
    runId: String(content.run.id),
    kpis: content.kpis,
    story: content.story ?? [],
    summary: content.summary,
    noiseNote: content.noiseNote,
    digest: content.digest,
    setCount: content.digest?.sets.length ?? 1,
    compact: (content.digest?.sets.length ?? 0) > DIGEST_FULL_SETS,
    attached,
    /** The file names joined the locale's way ("a, b and c"), for the `email.attached` message. */
    attachedList: new Intl.ListFormat(locale.tag, { type: 'conjunction' }).format(attached),
    notes,
    links: options.links,
  };
  const templates = loadTemplates(report.templates?.dir ?? options.templatesDir);
  return {
    from: options.from,
    to: email.to,
    cc: email.cc?.length ? email.cc : undefined,
    bcc: email.bcc?.length ? email.bcc : undefined,
    subject,
    messageId: options.messageId,
    date: options.date,
    // The templates' {{t}} helper and the view's numbers speak the report's language.
    html: withLocale(locale, () => templates.html({ ...view, lang: locale.tag })),
    text: withLocale(locale, () => templates.text({ ...view, lang: locale.tag })),
    attachments,
  };
}

/** What a subject template may use (`{{brand}}`, `{{period}}`…), also spread into the body's view. */
function subjectVariables(report: ReportEmailConfig, content: EmailContent): SubjectVariables {
  return {
    brand: content.brand,
    query_set: content.querySet.name,
    run: content.run.display_name,
    report: report.name,
    sets: String(content.digest?.sets.length ?? 1),
    period: content.digest?.period ?? content.run.display_name,
  };
}

/** The configured subject template, or the locale's default for a report or a digest. */
function emailSubject(
  template: string | undefined,
  reportName: string,
  content: EmailContent,
  vars: SubjectVariables & { recipient: { name: string } },
  locale: ReportLocale,
): string {
  // Handlebars without HTML escaping (a subject is not HTML); headerText drops what would break or
  // disguise the header (line breaks, NUL, bidi overrides).
  return headerText(
    template === undefined
      ? content.digest
        ? locale.t('digest.subject', { report: reportName, period: vars.period })
        : locale.t('email.subject', { brand: vars.brand, run: vars.run })
      : Handlebars.compile(template, { noEscape: true })(vars),
  );
}

/**
 * The PDF and XLSX files as attachments while their sum stays within the report's cap; each file
 * left out gets a note in the body instead.
 */
async function fileAttachments(
  report: ReportEmailConfig,
  content: EmailContent,
  locale: ReportLocale,
): Promise<{ attachments: Mail.Attachment[]; attached: string[]; notes: string[] }> {
  const capBytes = (report.max_attachment_mb ?? 10) * 1024 * 1024;
  const attachments: Mail.Attachment[] = [];
  const attached: string[] = [];
  const notes: string[] = [];
  let total = 0;
  for (const file of content.files) {
    const mime = MIME[file.format];
    if (!mime) continue;
    // A digest's files (one PDF, one workbook) are about every set: named by the report and period.
    const filename = content.digest
      ? attachmentName(report.name, '', content.digest.period, file.format)
      : attachmentName(report.name, content.brand, content.run.display_name, file.format);
    const size = (await stat(file.path)).size;
    // The cap is on the sum: mail servers limit whole messages, and base64 adds a third on top.
    if (total + size > capBytes) {
      notes.push(
        locale.t('email.leftOut', {
          file: filename,
          size: `${locale.number(size / 1024 / 1024, 1)} MB`,
          limit: report.max_attachment_mb ?? 10,
        }),
      );
      continue;
    }
    total += size;
    attachments.push({ filename, path: file.path, contentType: mime });
    attached.push(filename);
  }
  return { attachments, attached, notes };
}

interface Templates {
  html: HandlebarsTemplateDelegate;
  text: HandlebarsTemplateDelegate;
}
const cache = new Map<string, { stamp: string; templates: Templates }>();

/** The email templates of a folder (user's first, built-in otherwise), compiled again when a file changes. */
function loadTemplates(userDir?: string): Templates {
  const key = userDir ?? '';
  const path = (name: string) => {
    const user = userDir ? join(userDir, 'email', name) : undefined;
    return user && existsSync(user) ? user : join(BUILTIN, name);
  };
  const files = [path('report.hbs'), path('report.txt.hbs')];
  const stamp = [...files.map((file) => `${file}:${statSync(file).mtimeMs}`), catalogStamp(userDir)].join(
    '|',
  );
  const hit = cache.get(key);
  if (hit && hit.stamp === stamp) return hit.templates;
  const env = Handlebars.create();
  registerLocaleHelpers(env, readCatalogOverrides(userDir));
  // The built-in files as the build compiled them (report/packaged-templates.ts); a user's compiled
  // by Handlebars at first use, as before.
  const compile = (name: string) => {
    const options = TEMPLATE_OPTIONS[`email/${name}`];
    const source = readUnder(userDir, path(name));
    return packagedTemplate(env, path(name), source, options) ?? env.compile(source, options);
  };
  const templates = { html: compile('report.hbs'), text: compile('report.txt.hbs') };
  cache.set(key, { stamp, templates });
  return templates;
}
