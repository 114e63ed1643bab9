import { ruleFor } from '../../api/field-units.js';
import { competitiveContext, summary } from '../../api/schemas/overview.js';
import { t } from '../../locale/locale.js';
import { formatValue, toPercentPoints } from '../format.js';
import type { Available, PayloadReader } from './payloads.js';

export interface ShareRow {
  name: string;
  /** Percent points, for bars. */
  value: number;
  text: string;
  isBrand: boolean;
  isTargeted: boolean;
}

export interface SharesView {
  rows: ShareRow[];
  /** Percent points, or null when the payload has none. */
  fairShare: number | null;
  fairShareText: string;
}

export interface OverviewModel {
  /** Untrusted text split into paragraphs of lines; templates print each line escaped. */
  summary: Available<{ paragraphs: string[][] }>;
  competitive: Available<SharesView & { dStar: string }>;
}

export function buildOverview(reader: PayloadReader): OverviewModel {
  return { summary: buildSummary(reader), competitive: buildCompetitive(reader) };
}

function buildSummary(reader: PayloadReader): OverviewModel['summary'] {
  const key = 'overview.summary';
  const result = reader.read(key, summary);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const paragraphs = summaryParagraphs(result.data.content);
  if (paragraphs.length === 0) return reader.unavailable(key, t('reason.emptySummary'));
  return { available: true, paragraphs };
}

/**
 * The summary is shown as text, never HTML: tags are kept as visible characters (escaped by the
 * template), blank lines start paragraphs and single newlines become line breaks.
 */
export function summaryParagraphs(content: string): string[][] {
  return content
    .replace(/\r\n?/g, '\n')
    .split(/\n\s*\n/)
    .map((paragraph) =>
      paragraph
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line.length > 0),
    )
    .filter((lines) => lines.length > 0);
}

/** Share entries (overview and market) sorted largest first, the brand flagged for highlighting. */
export function shareRows(
  shares: readonly { name: string; share: number; isBrand: boolean; isTargeted: boolean }[],
  key: string,
): ShareRow[] {
  const rule = ruleFor(key, 'share');
  return [...shares]
    .sort((a, b) => b.share - a.share)
    .map((entry) => ({
      name: entry.name,
      value: toPercentPoints(entry.share, rule),
      text: formatValue(entry.share, rule),
      isBrand: entry.isBrand,
      isTargeted: entry.isTargeted,
    }));
}

function buildCompetitive(reader: PayloadReader): OverviewModel['competitive'] {
  const key = 'overview.competitive-context';
  const result = reader.read(key, competitiveContext);
  if (!result.ok) return reader.unavailable(key, result.reason);
  const data = result.data;
  const fairRule = ruleFor(key, 'fairShare');
  return {
    available: true,
    rows: shareRows(data.shares, key),
    fairShare: toPercentPoints(data.fairShare, fairRule),
    fairShareText: formatValue(data.fairShare, fairRule),
    dStar: formatValue(data.dStar, ruleFor(key, 'dStar')),
  };
}
