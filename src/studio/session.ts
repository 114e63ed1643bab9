import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../clock.js';
import type { Config } from '../config/index.js';
import { REPORT_LOCALES } from '../config/locale-tags.js';
import { REPORT_SECTIONS, type ReportSection } from '../config/report-sections.js';
import { type ChannelSender, channelSenders } from '../delivery/channels/index.js';
import type { EmailContent } from '../delivery/content.js';
import { digestEmailContent, emailContentFor } from '../delivery/headline.js';
import { composeForPreview, renderedAlready } from '../delivery/preview.js';
import { coversKey } from '../outbox/digest-rows.js';
import { type Delivery, EMAIL_DESTINATION, unsavedDelivery } from '../outbox/row.js';
import { renderDigest } from '../report/digest/render.js';
import type { PageSetup } from '../report/page.js';
import type { PdfRenderer } from '../report/pdf.js';
import { documentSettings, renderSnapshotDocuments, withBriefMovers } from '../report/render.js';
import { listAccounts } from '../store/accounts.js';
import { listQuerySets } from '../store/query-sets.js';
import { listSnapshots } from '../store/snapshots.js';
import type { Store } from '../store/sql.js';
import { withInlineParts } from './inline-parts.js';
import { type ChannelPayload, channelPayloads } from './payloads.js';

/**
 * What the studio previews, rendered by the same functions a delivery uses (renderSnapshotDocuments,
 * renderDigest) and composed by the outbox's composer (delivery/preview.ts), so what the author sees
 * is what is sent. Reads the store only.
 */

export interface Selection {
  account?: string;
  querySetId?: number;
  runId?: number;
  /** reports[].name: its locale, paper, theme, sections, templates and mode, unless overridden below. */
  report?: string;
  locale?: string;
  page?: PageSetup;
  mode?: 'per_set' | 'digest';
  /** Another report's theme by its name, or BUILT_IN_THEME for none. */
  theme?: string;
  sections?: ReportSection[];
}

/** The theme picker's "no theme": the built-in look. */
export const BUILT_IN_THEME = '(built-in)';

export interface Preview {
  /** The printed HTML, as Chromium gets it. */
  html: string;
  email: { subject: string; html: string; text: string };
  /** What each channel would be sent (its sender's preview, as `deliver --dry-run` prints it). */
  channels: ChannelPayload[];
}

/** What can be picked: every stored set and run, and the configured reports. */
export async function studioOptions(store: Store, config: Config) {
  const accounts = [];
  for (const account of await listAccounts(store)) {
    const sets = [];
    for (const set of await listQuerySets(store, account.name)) {
      const runs = (await listSnapshots(store, { querySetId: set.id, account: account.name })).map((s) => ({
        id: s.run.id,
        name: s.run.display_name,
      }));
      if (runs.length > 0) sets.push({ id: set.id, name: set.name, runs });
    }
    accounts.push({ name: account.name, sets });
  }
  return {
    accounts,
    reports: config.reports.map((r) => ({
      name: r.name,
      mode: r.mode,
      locale: r.locale,
      page: r.page,
      sections: r.sections,
      themed: r.theme !== undefined,
    })),
    locales: REPORT_LOCALES,
    sections: REPORT_SECTIONS,
  };
}

/** What one render wrote, and what its email and channel messages are made of. */
interface Rendered {
  path: string;
  content: EmailContent;
  row: Pick<Delivery, 'report' | 'querySetId' | 'runId' | 'account' | 'covers'>;
}

export class StudioSession {
  private readonly outDir = mkdtempSync(join(tmpdir(), 'reportd-studio-'));
  private senders: ReadonlyMap<string, ChannelSender>;

  constructor(
    readonly store: Store,
    private config: Config,
    /** The folder being authored: wins over the config's folders so its edits show. */
    private readonly templatesDir: string | undefined,
  ) {
    this.senders = channelSenders(config.channels);
  }

  /** Takes an edited config (already validated): its reports, themes and channels show in the next render. */
  reconfigure(config: Config): void {
    this.config = config;
    this.senders = channelSenders(config.channels);
  }

  /** The report whose settings apply, with the selection's overrides. */
  private settings(selection: Selection) {
    const report = this.config.reports.find((r) => r.name === selection.report);
    const {
      theme: _theme,
      themeWhere: _where,
      ...base
    } = report ? documentSettings(report) : ({ timeZone: 'UTC' } as ReturnType<typeof documentSettings>);
    // The look: the report's own, another report's (picked by its name) or the built-in one.
    const looks =
      selection.theme === undefined
        ? report
        : selection.theme === BUILT_IN_THEME
          ? undefined
          : this.config.reports.find((r) => r.name === selection.theme);
    const look = looks ? documentSettings(looks) : {};
    return {
      report,
      ...base,
      theme: look.theme,
      themeWhere: look.themeWhere,
      // As when the report is sent: its own folder over the top-level one, which the studio's
      // --templates folder stands in for.
      templatesDir: base.templatesDir ?? this.templatesDir ?? this.config.templates.dir,
      ...(selection.locale ? { locale: selection.locale } : {}),
      ...(selection.page ? { page: selection.page } : {}),
      contents: {
        ...(report ? { detail: report.detail } : {}),
        ...((selection.sections ?? report?.sections)
          ? { sections: selection.sections ?? report?.sections }
          : {}),
      },
    };
  }

  /**
   * The selection's document in one format, by the functions a delivery uses: renderSnapshotDocuments
   * for a set's run, renderDigest for a digest over the account's newest runs.
   */
  private async render(
    selection: Selection,
    format: 'html' | 'pdf',
    folder: string,
    renderer?: PdfRenderer,
  ): Promise<Rendered> {
    const { report, contents, ...settings } = this.settings(selection);
    const name = report?.name ?? 'studio';
    const mode = selection.mode ?? report?.mode ?? 'per_set';
    const common = {
      ...settings,
      contents,
      formats: [format],
      outDir: folder,
      ...(renderer ? { renderer } : {}),
    };
    if (mode === 'digest') {
      const runs = await this.digestRuns(selection);
      const rendered = await renderDigest(this.store, { ...common, report: name, runs });
      return {
        path: rendered.paths[0]!,
        content: digestEmailContent(rendered.sets, [], rendered.period),
        row: { report: name, querySetId: 0, runId: 0, account: null, covers: coversKey(runs) },
      };
    }
    const snapshot = await this.snapshot(selection);
    const history = await listSnapshots(this.store, {
      querySetId: snapshot.querySet.id,
      account: snapshot.account,
    });
    const rendered = await renderSnapshotDocuments(
      snapshot,
      history,
      await withBriefMovers(this.store, snapshot, common),
    );
    return {
      path: rendered.paths[0]!,
      content: emailContentFor(snapshot, rendered.model, []),
      row: {
        report: name,
        querySetId: snapshot.querySet.id,
        runId: snapshot.run.id,
        account: snapshot.account,
        covers: null,
      },
    };
  }

  async preview(selection: Selection): Promise<Preview> {
    const { report, locale, templatesDir, theme } = this.settings(selection);
    const folder = mkdtempSync(join(this.outDir, 'r-'));
    try {
      const rendered = await this.render(selection, 'html', folder);
      // The composer a delivery of this row uses, with the studio's overrides as the report's config.
      const composed = await composeForPreview(
        unsavedDelivery(
          { ...rendered.row, destination: EMAIL_DESTINATION, messageId: '<studio-preview@reportd>' },
          systemClock.now(),
        ),
        {
          config: this.config,
          store: this.store,
          renderer: renderedAlready(rendered.content),
          clock: systemClock,
          reports: [
            {
              name: rendered.row.report,
              email: report?.email ?? { to: ['preview@localhost'] },
              locale,
              theme,
              templates: { dir: templatesDir },
            },
          ],
        },
      );
      const { message } = await composed.email!();
      return {
        html: readFileSync(rendered.path, 'utf8'),
        email: {
          subject: String(message.subject),
          html: withInlineParts(String(message.html), message.attachments),
          text: String(message.text),
        },
        channels: await channelPayloads(this.senders, report, rendered.row, rendered.content),
      };
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  /** The PDF as a delivery prints it, through the given renderer (the studio's pool). */
  async pdf(selection: Selection, renderer: PdfRenderer): Promise<Buffer> {
    const folder = mkdtempSync(join(this.outDir, 'p-'));
    try {
      return readFileSync((await this.render(selection, 'pdf', folder, renderer)).path);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  private async snapshot(selection: Selection) {
    const options = await studioOptions(this.store, this.config);
    const account = options.accounts.find((a) => a.name === selection.account) ?? options.accounts[0];
    const set = account?.sets.find((s) => s.id === selection.querySetId) ?? account?.sets[0];
    if (!account || !set) throw new Error('nothing is stored yet: run `reportd sync` first');
    const runId = set.runs.some((r) => r.id === selection.runId) ? selection.runId : undefined;
    const [snapshot] = await listSnapshots(this.store, { querySetId: set.id, account: account.name });
    if (runId === undefined && snapshot) return snapshot;
    const all = await listSnapshots(this.store, { querySetId: set.id, account: account.name });
    const found = all.find((s) => s.run.id === runId) ?? all[0];
    if (!found) throw new Error(`no complete snapshot of query set ${set.id} is stored`);
    return found;
  }

  /** A digest over the newest run of every stored set of the account. */
  private async digestRuns(selection: Selection) {
    const options = await studioOptions(this.store, this.config);
    const account = options.accounts.find((a) => a.name === selection.account) ?? options.accounts[0];
    if (!account || account.sets.length === 0)
      throw new Error('nothing is stored yet: run `reportd sync` first');
    return account.sets.map((set) => ({ account: account.name, querySetId: set.id, runId: set.runs[0]!.id }));
  }

  close(): void {
    rmSync(this.outDir, { recursive: true, force: true });
  }
}
