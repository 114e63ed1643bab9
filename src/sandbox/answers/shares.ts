import type { SetRecord } from '../dataset/records.js';
import { apportion } from '../rng.js';
import type { RunTally } from './tally.js';

/** A share entry as the API sends it; `share` is a fraction and the entries of one list sum to 1. */
export interface Share {
  name: string;
  share: number;
  isBrand: boolean;
  isTargeted: boolean;
}

/** Largest first; equal shares by name (code-point order: cheap, and the same on every machine). */
const bySize = (a: Share, b: Share) => b.share - a.share || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Share of voice: each brand's mentions among all brand mentions of the run's answers, largest first,
 * with the other competitors folded into one entry named like "Other competitors (7)" (the spec warns
 * such entries exist) and kept last.
 */
export function shareOfVoice(set: SetRecord, tally: RunTally): Share[] {
  const counts = [tally.overall.named, ...tally.competitorMentions, tally.otherMentions];
  const shares = apportion(counts, 1, 3);
  const named: Share[] = [
    { name: set.brand.name, share: shares[0] ?? 0, isBrand: true, isTargeted: true },
    ...set.competitors.map((c, k) => ({
      name: c.name,
      share: shares[k + 1] ?? 0,
      isBrand: false,
      isTargeted: c.targeted,
    })),
  ].sort(bySize);
  if (set.def.otherCompetitors > 0) {
    named.push({
      name: `Other competitors (${set.def.otherCompetitors})`,
      share: shares.at(-1) ?? 0,
      isBrand: false,
      isTargeted: false,
    });
  }
  return named;
}

/** Among the brand and its monitored competitors only: each one's share of the answers recommending it. */
export function monitoredShares(set: SetRecord, tally: RunTally): Share[] {
  const monitored = set.competitors.map((c, k) => ({ c, k })).filter(({ c }) => c.targeted);
  const shares = apportion(
    [tally.overall.stances[0]!, ...monitored.map(({ k }) => tally.competitorRecommended[k]!)],
    1,
    3,
  );
  return [
    { name: set.brand.name, share: shares[0] ?? 0, isBrand: true, isTargeted: true },
    ...monitored.map(({ c }, k) => ({
      name: c.name,
      share: shares[k + 1] ?? 0,
      isBrand: false,
      isTargeted: true,
    })),
  ].sort(bySize);
}
