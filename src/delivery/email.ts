import { existsSync, readFileSync, statSync } from 'node:fs';
import { mkdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Handlebars from 'handlebars';
import nodemailer, { type Transporter } from 'nodemailer';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { SubjectVariables } from '../config/subject-template.js';
import { catalogStamp, readCatalogOverrides } from '../locale/catalog-files.js';
import { registerLocaleHelpers } from '../locale/helpers.js';
import { type ReportLocale, reportLocale, withLocale } from '../locale/locale.js';
import { readUnder } from '../locale/template-file.js';
import { headerText } from '../printable.js';
import { type ThemeConfig, templateLogo, themeView } from '../report/theme/theme.js';
import { registerSecret } from '../secrets.js';
import { abortableSmtpTransport, type SmtpConnectionOptions } from './smtp-transport.js';

/** The email part of a report's config (`reports[].email` plus the attachment cap). */
export interface ReportEmailConfig {
  name: string;
  /** Absent for a report delivered through channels only. Subject: the locale's default when absent. */
  email?: { to: string[]; cc?: string[]; bcc?: string[]; subject?: string };
  /** Names of `channels[]` entries that get the report too (one outbox row each). */
  channels?: readonly string[];
  max_attachment_mb?: number;
  /** `reports[].locale`: the language of the subject default, the body and its numbers. */
  locale?: string;
  /** `reports[].theme`: the band's colour, the logo, the title line and the footer. */
  theme?: ThemeConfig;
  /** `reports[].templates.dir`: this report's templates over the global folder. */
  templates?: { dir?: string };
}

/** `smtp:` in the config: a URL, or host/port/secure/user/password. */
export interface SmtpSettings {
  url?: string;
  host?: string;
  port?: number;
  secure?: boolean;
  user?: string;
  password?: string;
  password_file?: string;
  from: string;
}

/** A file the renderer wrote for this delivery. Only PDF and XLSX are attached (HTML is a preview). */
export interface ReportFile {
  path: string;
  format: 'pdf' | 'xlsx' | 'html';
}

/** One headline card of the email (headline.ts picks them from the report's view model). */
export interface HeadlineKpi {
  label: string;
  value: string;
  delta: string;
  /** The judged change's interval as it is ("−12.5 to −4.6 pts"); absent when not judged. */
  interval?: string;
  /** `likely` or `unclear` (no clear change); absent when not judged. */
  verdict?: 'likely' | 'unclear';
  /** ▲ or ▼ on a likely change only (report/format.ts `withVerdict`); empty otherwise. */
  arrow: string;
  /** "better" or "worse" beside a likely change's arrow; empty or absent otherwise. */
  meaning?: string;
  /** The change in words for assistive technology ("down 8.3 points, likely change, worse"). */
  said?: string;
  /** A likely change that is good (bad) news: the colour the arrow is drawn in. */
  good: boolean;
  bad: boolean;
}

/** One set's lines in a digest email: its headline KPIs with deltas. */
export interface DigestEmailSet {
  brand: string;
  querySet: string;
  run: string;
  /** The (set, run) this headline is of, for channels that name them (the webhook's `digest.sets`). */
  querySetId: number;
  runId: number;
  /** "No new run since Week 36." when this run was in an earlier message. */
  noNewRun?: string;
  kpis: HeadlineKpi[];
  /** The story of this set's run, as the digest's portfolio page prints it; none for a repeated run. */
  story?: string[];
  /** The footnote on this set's judged changes (headline.ts `noiseNote`); none when nothing was judged. */
  noiseNote?: string | undefined;
}

export interface EmailContent {
  /** Set for a digest: every set's headline, and the runs' labels collapsed ("Week 36 – Week 37"). */
  digest?: { sets: DigestEmailSet[]; period: string };
  brand: string;
  querySet: { id: number; name: string };
  run: { id: number; display_name: string };
  kpis: HeadlineKpi[];
  /** The report's story of the run (3–5 sentences, report/model/story.ts); a digest has one per set. */
  story?: string[];
  summary?: string;
  /** The footnote on the judged changes (headline.ts `noiseNote`); none when nothing was judged. */
  noiseNote?: string | undefined;
  files: ReportFile[];
}

export interface ComposeOptions {
  from: string;
  report: ReportEmailConfig;
  content: EmailContent;
  /** Fixed per delivery (see src/outbox/deliveries.ts) so a resend carries the same id. */
  messageId: string;
  /** A user copy of templates/ (config `templates.dir`); its `email/` files win over the built-ins. */
  templatesDir?: string;
  date?: Date;
}

/** Content-ID of the theme's logo in a report email. */
const LOGO_CID = 'logo@reportd';
const BUILTIN = fileURLToPath(new URL('../../templates/email/', import.meta.url));
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
  const vars = subjectVariables(report, content);
  const subject = emailSubject(email.subject, report.name, content, vars, locale);
  const { attachments, attached, notes } = await fileAttachments(report, content, locale);

  const { logo, ...theme } = await themeView(report.theme, `report "${report.name}" theme`);
  // The logo travels as an inline PNG part (cid:), which mail clients show; most refuse data: URLs
  // and SVG alike. It is the PNG reportd drew (theme/logo.ts), never the author's file.
  if (logo) {
    attachments.push({
      cid: LOGO_CID,
      content: logo.png,
      contentType: 'image/png',
      contentDisposition: 'inline',
    });
  }
  const view = {
    ...vars,
    theme: {
      ...theme,
      ...(logo ? { logo: templateLogo(logo) } : {}),
      logoSrc: logo ? `cid:${LOGO_CID}` : undefined,
    },
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
    attached,
    /** The file names joined the locale's way ("a, b and c"), for the `email.attached` message. */
    attachedList: new Intl.ListFormat(locale.tag, { type: 'conjunction' }).format(attached),
    notes,
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
  vars: SubjectVariables,
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

/** `weekly-executive-northwind-coffee-2026-w14.pdf`: ASCII only, no path parts, bounded length. */
export function attachmentName(report: string, brand: string, run: string, ext: string): string {
  const slug = [report, brand, run]
    .map((part) =>
      part
        .normalize('NFKD')
        .replace(/[\u0300-\u036f]/g, '')
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, '-')
        .replace(/^-+|-+$/g, ''),
    )
    .filter(Boolean)
    .join('-')
    .slice(0, 100)
    .replace(/-+$/, '');
  return `${slug || 'report'}.${ext}`;
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
  const pick = (name: string) => readUnder(userDir, path(name));
  const env = Handlebars.create();
  registerLocaleHelpers(env, readCatalogOverrides(userDir));
  const templates = {
    html: env.compile(pick('report.hbs'), { strict: false }),
    // Plain text: no HTML escaping, or "R&D" would arrive as "R&amp;D".
    text: env.compile(pick('report.txt.hbs'), { noEscape: true }),
  };
  cache.set(key, { stamp, templates });
  return templates;
}

export interface SendResult {
  accepted: string[];
  rejected: string[];
  response: string;
  /** The server's reply to each rejected recipient (its RCPT TO answer), when the transport knows it. */
  refusals?: SmtpRefusal[];
}

export interface SmtpRefusal {
  recipient: string;
  /** The reply code: 4xx may pass later (deferred), 5xx will not (refused). */
  code?: number;
  reply: string;
}

/** Nodemailer's per-recipient errors (`rejectedErrors`, on the result or on an all-rejected error). */
export function refusalsOf(errors: unknown): SmtpRefusal[] {
  if (!Array.isArray(errors)) return [];
  return errors.map(
    (e: { recipient?: unknown; responseCode?: unknown; response?: unknown; message?: unknown }) => ({
      recipient: String(e.recipient ?? ''),
      code: typeof e.responseCode === 'number' ? e.responseCode : undefined,
      reply: String(e.response ?? e.message ?? ''),
    }),
  );
}

/** The mail transport behind a small interface: SMTP in production, anything nodemailer takes in tests. */
export interface Mailer {
  /**
   * Sends one message. `signal` (the outbox's lost lease) gives the exchange up where it stands: the
   * SMTP mailer closes its connection, so a message whose DATA had not ended is not delivered.
   */
  send(message: Mail.Options, signal?: AbortSignal): Promise<SendResult>;
  close(): void;
}

/**
 * A mailer over any nodemailer transport (tests hand in stream or SMTP transports). It can only
 * honour `signal` before the exchange starts; createSmtpMailer's transport also cuts one under way.
 */
export function mailerFromTransport(transporter: Transporter): Mailer {
  return {
    async send(message, signal) {
      signal?.throwIfAborted();
      return sendResultOf(await transporter.sendMail(message));
    },
    close: () => transporter.close(),
  };
}

/** nodemailer's answer (accepted, rejected, per-recipient errors) in the outbox's terms. */
function sendResultOf(sent: unknown): SendResult {
  const info = sent as Partial<SendResult> & {
    accepted?: unknown[];
    rejected?: unknown[];
    rejectedErrors?: unknown;
  };
  return {
    accepted: (info.accepted ?? []).map(String),
    rejected: (info.rejected ?? []).map(String),
    response: String(info.response ?? ''),
    refusals: refusalsOf(info.rejectedErrors),
  };
}

/**
 * An SMTP mailer from the config. The outbox's heartbeat keeps the row claimed during a slow exchange;
 * the timeouts make a hung server fail the attempt (and retry it) instead of holding the row until
 * the outbox's hold cap.
 */
export function createSmtpMailer(smtp: SmtpSettings): Mailer {
  let password = smtp.password;
  if (password === undefined && smtp.password_file)
    password = readFileSync(smtp.password_file, 'utf8').trim();
  registerSecret(password);
  // Always the fields the config loader unpacked (from `url` too), never the raw URL: nodemailer
  // would parse it again with other rules than the ones `reportd check` validated it with, and a
  // malformed percent-escape would surface as a crash at send time instead of a config error.
  const options: SmtpConnectionOptions = {
    host: smtp.host,
    port: smtp.port ?? (smtp.secure ? 465 : 587),
    secure: smtp.secure ?? false,
    ...(smtp.user ? { auth: { user: smtp.user, pass: password ?? '' } } : {}),
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  };
  return {
    // One connection per message, as nodemailer's SMTP transport does; the transport is made per
    // send so that this send's signal can close this send's connection.
    send: async (message, signal) =>
      sendResultOf(
        await nodemailer.createTransport(abortableSmtpTransport(options, signal)).sendMail(message),
      ),
    close: () => {},
  };
}

/** Writes the message as an RFC 822 `.eml` file (what the demo shows instead of sending). */
export async function writeEml(message: Mail.Options, file: string): Promise<string> {
  const transporter = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });
  const info = await transporter.sendMail(message);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, info.message as Buffer);
  return file;
}

/** `report.pdf` → `pdf`; used by callers that only have paths. */
export function formatOf(path: string): ReportFile['format'] | undefined {
  const ext = extname(basename(path)).slice(1).toLowerCase();
  return ext === 'pdf' || ext === 'xlsx' || ext === 'html' ? ext : undefined;
}
