import { apportion } from '../rng.js';
import type { BrandDef, CompetitorDef, QuerySetDef } from './catalog.js';
import { fraction, walk } from './walk.js';

/** A share entry as the API sends it; `share` is a fraction and the entries of one list sum to 1. */
export interface Share {
  name: string;
  share: number;
  isBrand: boolean;
  isTargeted: boolean;
}

export interface ShareContext {
  set: Pick<QuerySetDef, 'id' | 'otherCompetitors'>;
  brand: BrandDef;
  competitors: readonly CompetitorDef[];
}

const competitorWeight = (ctx: ShareContext, c: CompetitorDef, i: number) =>
  walk([ctx.set.id, 'share', c.id], i, fraction(c.weight * 0.85, c.weight * 1.15, 0.002, 0.012));

/**
 * Share of voice among every brand the engines mention, largest first, with the long tail folded
 * into one aggregate entry named like "Other competitors (7)" — the spec warns such entries exist.
 */
export function competitiveShares(ctx: ShareContext, i: number): Share[] {
  const brandWeight = walk([ctx.set.id, 'share', 'brand'], i, fraction(0.2, 0.27, 0.004, 0.012));
  const otherWeight = walk([ctx.set.id, 'share', 'other'], i, fraction(0.18, 0.24, -0.002, 0.01));
  const entries = [
    { name: ctx.brand.name, w: brandWeight, isBrand: true, isTargeted: true },
    ...ctx.competitors.map((c) => ({
      name: c.name,
      w: competitorWeight(ctx, c, i),
      isBrand: false,
      isTargeted: c.targeted,
    })),
  ];
  const shares = apportion([...entries.map((e) => e.w), otherWeight], 1, 3);
  const named: Share[] = entries.map((e, k) => ({
    name: e.name,
    share: shares[k] ?? 0,
    isBrand: e.isBrand,
    isTargeted: e.isTargeted,
  }));
  named.sort((a, b) => b.share - a.share || a.name.localeCompare(b.name));
  if (ctx.set.otherCompetitors > 0) {
    named.push({
      name: `Other competitors (${ctx.set.otherCompetitors})`,
      share: shares[shares.length - 1] ?? 0,
      isBrand: false,
      isTargeted: false,
    });
  }
  return named;
}

/** Among the brand and its monitored competitors only: share of favourable (life) mentions. */
export function monitoredShares(ctx: ShareContext, i: number): Share[] {
  const monitored = ctx.competitors.filter((c) => c.targeted);
  const weights = [
    walk([ctx.set.id, 'lifeShare', 'brand'], i, fraction(0.3, 0.4, 0.005, 0.015)),
    ...monitored.map((c) => walk([ctx.set.id, 'lifeShare', c.id], i, fraction(0.15, 0.3))),
  ];
  const shares = apportion(weights, 1, 3);
  return [
    { name: ctx.brand.name, share: shares[0] ?? 0, isBrand: true, isTargeted: true },
    ...monitored.map((c, k) => ({
      name: c.name,
      share: shares[k + 1] ?? 0,
      isBrand: false,
      isTargeted: true,
    })),
  ].sort((a, b) => b.share - a.share || a.name.localeCompare(b.name));
}
