import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { attachmentName, type EmailContent, type ReportFile } from '../email.js';

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

/** One line per KPI, e.g. "Weighted presence: 42.1% ▲ +1.2 pts". */
export function kpiLine(kpi: EmailContent['kpis'][number]): string {
  return `${kpi.value}${kpi.delta ? ` ${kpi.arrow} ${kpi.delta}`.replace(/\s+/g, ' ') : ''}`;
}

/** The headline every channel leads with. */
export function title(content: EmailContent): string {
  return `${content.brand} — ${content.run.display_name}`;
}
