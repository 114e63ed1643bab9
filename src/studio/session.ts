import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../config/index.js';
import { composeEmail } from '../delivery/email.js';
import { digestEmailContent, emailContentFor } from '../delivery/headline.js';
import { renderDigest } from '../report/digest/render.js';
import type { PageSetup } from '../report/page.js';
import type { PdfRenderer } from '../report/pdf.js';
import { documentSettings, renderSnapshotDocuments, withBriefMovers } from '../report/render.js';
import { listAccounts } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { listQuerySets } from '../store/query-sets.js';
import { listSnapshots } from '../store/snapshots.js';

/**
 * What the studio previews, rendered by the same functions a delivery uses (renderSnapshotDocuments,
 * renderDigest, composeEmail), so what the author sees is what is sent. Reads the store only.
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
}

export interface Preview {
  /** The printed HTML, as Chromium gets it. */
  html: string;
  email: { subject: string; html: string; text: string };
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
    reports: config.reports.map((r) => ({ name: r.name, mode: r.mode, locale: r.locale, page: r.page })),
  };
}

export class StudioSession {
  private readonly outDir = mkdtempSync(join(tmpdir(), 'reportd-studio-'));

  constructor(
    readonly store: Store,
    private readonly config: Config,
    /** The folder being authored: wins over the config's folders so its edits show. */
    private readonly templatesDir: string | undefined,
  ) {}

  /** The report whose settings apply, with the selection's overrides. */
  private settings(selection: Selection) {
    const report = this.config.reports.find((r) => r.name === selection.report);
    const base = report ? documentSettings(report) : { timeZone: 'UTC' };
    return {
      report,
      ...base,
      templatesDir: this.templatesDir ?? base.templatesDir ?? this.config.templates.dir,
      ...(selection.locale ? { locale: selection.locale } : {}),
      ...(selection.page ? { page: selection.page } : {}),
      contents: report ? { sections: report.sections, detail: report.detail } : {},
    };
  }

  async preview(selection: Selection): Promise<Preview> {
    const { report, contents, ...settings } = this.settings(selection);
    const mode = selection.mode ?? report?.mode ?? 'per_set';
    const folder = mkdtempSync(join(this.outDir, 'r-'));
    try {
      const common = { ...settings, contents, formats: ['html'] as const, outDir: folder };
      let html: string;
      let content: Parameters<typeof composeEmail>[0]['content'];
      if (mode === 'digest') {
        const sets = await this.digestRuns(selection);
        const rendered = await renderDigest(this.store, {
          ...common,
          formats: ['html'],
          report: report?.name ?? 'studio',
          runs: sets,
        });
        html = readFileSync(rendered.paths[0]!, 'utf8');
        content = digestEmailContent(rendered.sets, [], rendered.period);
      } else {
        const snapshot = await this.snapshot(selection);
        const history = await listSnapshots(this.store, {
          querySetId: snapshot.querySet.id,
          account: snapshot.account,
        });
        const rendered = await renderSnapshotDocuments(
          snapshot,
          history,
          await withBriefMovers(this.store, snapshot, { ...common, formats: ['html'] }),
        );
        html = readFileSync(rendered.paths[0]!, 'utf8');
        content = emailContentFor(snapshot, rendered.model, []);
      }
      const message = await composeEmail({
        from: this.config.smtp?.from ?? 'reportd <reportd@localhost>',
        report: {
          name: report?.name ?? 'studio',
          email: report?.email ?? { to: ['preview@localhost'] },
          locale: settings.locale,
          theme: report?.theme,
          templates: { dir: settings.templatesDir },
        },
        content,
        messageId: '<studio-preview@reportd>',
      });
      return {
        html,
        email: { subject: String(message.subject), html: String(message.html), text: String(message.text) },
      };
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }

  /** The PDF as a delivery prints it, through the given renderer (the studio's pool). */
  async pdf(selection: Selection, renderer: PdfRenderer): Promise<Buffer> {
    const { report, contents, ...settings } = this.settings(selection);
    const folder = mkdtempSync(join(this.outDir, 'p-'));
    try {
      const snapshot = await this.snapshot(selection);
      const history = await listSnapshots(this.store, {
        querySetId: snapshot.querySet.id,
        account: snapshot.account,
      });
      const rendered = await renderSnapshotDocuments(
        snapshot,
        history,
        await withBriefMovers(this.store, snapshot, {
          ...settings,
          contents,
          formats: ['pdf'],
          outDir: folder,
          renderer,
          outline: report?.mode === 'digest',
        }),
      );
      return readFileSync(rendered.paths[0]!);
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
