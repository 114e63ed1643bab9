import { readdirSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { ReportConfig } from '../config/schema.js';
import { safeFileName } from '../report/file-names.js';

/**
 * The latest rendered file of each format of a report, found where the delivery renderer writes
 * them (`output.dir/<report>/set-<id>-run-<id>/`, see delivery/render-delivery.ts). Read from the
 * disk at request time: renders of another daemon or of `reportd deliver` count too.
 */
export interface LatestFile {
  format: 'pdf' | 'xlsx';
  path: string;
  name: string;
  modifiedAt: number;
}

const FORMATS: Record<string, LatestFile['format']> = { '.pdf': 'pdf', '.xlsx': 'xlsx' };

export function latestFiles(outputDir: string, report: Pick<ReportConfig, 'name'>): LatestFile[] {
  const base = join(outputDir, safeFileName([report.name]));
  const newest = new Map<LatestFile['format'], LatestFile>();
  for (const run of list(base)) {
    if (!/^set-\d+-run-\d+$/.test(run)) continue;
    for (const name of list(join(base, run))) {
      const format = FORMATS[extname(name).toLowerCase()];
      if (!format) continue;
      const path = join(base, run, name);
      let modifiedAt: number;
      try {
        const stat = statSync(path);
        if (!stat.isFile()) continue;
        modifiedAt = stat.mtimeMs;
      } catch {
        continue; // removed meanwhile
      }
      const best = newest.get(format);
      if (!best || modifiedAt > best.modifiedAt) newest.set(format, { format, path, name, modifiedAt });
    }
  }
  return [...newest.values()].sort((a, b) => a.format.localeCompare(b.format));
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return []; // nothing rendered yet
  }
}
