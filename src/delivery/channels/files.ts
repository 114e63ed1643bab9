import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { attachmentName, type EmailContent, type ReportFile } from '../content.js';

/** A delivered file as channels describe it: the email's attachment name, size and SHA-256. */
export interface ChannelFile {
  name: string;
  format: ReportFile['format'];
  path: string;
  size: number;
  sha256: string;
  bytes: Buffer;
}

/** The PDF and XLSX files of a delivery (HTML is a preview, as in the email), read once. */
export async function channelFiles(report: string, content: EmailContent): Promise<ChannelFile[]> {
  const out: ChannelFile[] = [];
  for (const file of content.files) {
    if (file.format === 'html') continue;
    const bytes = await readFile(file.path);
    out.push({
      name: attachmentName(report, content.brand, content.run.display_name, file.format),
      format: file.format,
      path: file.path,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes,
    });
  }
  return out;
}

/**
 * One line per KPI, e.g. "42.1% ▲ +1.2 pts better (+0.4 to +2.0 pts)": only a likely change has an
 * arrow, and its "better"/"worse" says in words what the email's colour says.
 */
export function kpiLine(kpi: EmailContent['kpis'][number]): string {
  if (!kpi.delta) return kpi.value;
  const interval = kpi.interval ? `(${kpi.interval})` : '';
  return [kpi.value, kpi.arrow, kpi.delta, kpi.meaning, interval].filter(Boolean).join(' ');
}

/** The headline every channel leads with; a digest's names its brands and the period it covers. */
export function title(content: EmailContent): string {
  if (content.digest) {
    const brands = [...new Set(content.digest.sets.map((s) => s.brand))].join(', ');
    return `${brands} — ${content.digest.period}`;
  }
  return `${content.brand} — ${content.run.display_name}`;
}

/** One set's line under the headline: its name, id and run (a digest has one per set). */
export function setLine(set: { querySet: string; querySetId: number; run?: string }): string {
  return `${set.querySet} · query set ${set.querySetId}${set.run ? ` · ${set.run}` : ''}`;
}

/**
 * The sections a channel message shows: one per set of a digest (its headline KPIs and, when the run
 * was in an earlier message, that note), or the single set's.
 */
export function headlineSets(
  content: EmailContent,
): { line: string; kpis: EmailContent['kpis']; note?: string }[] {
  if (!content.digest) {
    return [
      {
        line: setLine({ querySet: content.querySet.name, querySetId: content.querySet.id }),
        kpis: content.kpis,
      },
    ];
  }
  return content.digest.sets.map((set) => ({ line: setLine(set), kpis: set.kpis, note: set.noNewRun }));
}

/** `text` cut to `max` characters with an ellipsis (providers cap their text fields). */
export const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
