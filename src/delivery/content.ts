import { basename, extname } from 'node:path';

/**
 * What a report delivery carries to every destination: the rendered files and the headline of the
 * run (or of each set of a digest). Email composes its message from it (compose/email.ts), Slack,
 * Teams and webhooks their payloads (channels/); no destination adds to it.
 */

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

/** `report.pdf` → `pdf`; used by callers that only have paths. */
export function formatOf(path: string): ReportFile['format'] | undefined {
  const ext = extname(basename(path)).slice(1).toLowerCase();
  return ext === 'pdf' || ext === 'xlsx' || ext === 'html' ? ext : undefined;
}
