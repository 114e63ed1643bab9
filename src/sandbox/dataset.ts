import { runFigures } from './answers/run.js';
import { dayMonthYear, isoWeekMonday, isoWithOffset, WEEK_MS, weekLabel } from './dataset/calendar.js';
import {
  BRANDS,
  type BrandDef,
  COMPANY_ID,
  type CompetitorDef,
  type QuerySetDef,
} from './dataset/catalog.js';
import { type CompanyCatalog, companyCatalog } from './dataset/companies.js';
import { errorsOf, type GravityErrorDef } from './dataset/error-register.js';
import type { RunRecord, SetRecord } from './dataset/records.js';
import { sourcesOf } from './dataset/sources.js';
import { hashSeed } from './rng.js';

/**
 * The sandbox's data set: a fictional company (brands 1 "Northwind Coffee" and 2 "Lumen Tea") with its
 * query sets and published runs. Each run's answers are simulated from the set's rates and every
 * payload is counted from them (answers/), so an overall figure lies within the range of its
 * breakdowns and counts add up. Everything is derived from fixed definitions and hashed addresses
 * (see rng.ts), so two data sets built with the same options answer identically. Each sandbox gets its
 * own instance, so `publishRun` in one test never shows up in another. Scales of the numeric fields
 * (percent vs fraction) are listed in payloads/context.ts.
 */

export interface DatasetOptions {
  /**
   * Put hostile strings where real API text could carry them (a competitor named like a spreadsheet
   * formula, a summary with a script tag and a remote image, an error note that closes HTML tags),
   * for tests proving the report treats API strings as untrusted text. Off by default.
   */
  hostile?: boolean;
  /** Which company of a multi-company sandbox (see dataset/companies.ts); 1, the demo, by default. */
  company?: number;
  /**
   * A quiet world: every run of every set is an independent draw of answers from the same rates (no
   * drift from run to run, an error register and source list that do not change), so any change
   * between two runs is sampling noise — unless a run is published with `grossChange` or `movement`.
   */
  quiet?: boolean;
  /** Adds this many sets (301, 302, …; two runs each) to the company, see dataset/extra-sets.ts. */
  extraSets?: number;
}

export const HOSTILE = {
  competitorName: '=HYPERLINK("http://evil.example","x")',
  summaryHtml: '<script>alert(1)</script><img src="http://127.0.0.1:1/x.png">',
  errorNote: '</td></tr></table><script>alert(2)</script>',
} as const;

/** Points a movement run takes off gross presence (and so off weighted): past the example rule's −5. */
export const MOVEMENT_DROP_POINTS = 9;

/** Publication: the Monday after the run's week, early morning, at a set-specific minute. */
function publishedAt(def: QuerySetDef, periodMonday: number): number {
  return periodMonday + WEEK_MS + 5 * 3_600_000 + (hashSeed(def.id, 'minute') % 50) * 60_000;
}

function runRecord(def: QuerySetDef, brand: BrandDef | undefined, index: number, id: number): RunRecord {
  const periodMonday = isoWeekMonday(2026, def.firstWeek) + index * def.stepWeeks * WEEK_MS;
  const at = publishedAt(def, periodMonday);
  return {
    id,
    display_name: weekLabel(periodMonday),
    created_at: isoWithOffset(at, brand?.offset ?? 'utc'),
    index,
    publishedAt: at,
    periodMonday,
  };
}

/** What a published run carries (see `publishRun`). */
export interface PublishOptions {
  /**
   * The brand's presence rate falls by `MOVEMENT_DROP_POINTS` from this run on (so gross presence
   * falls that much against the previous run, see `grossChange`), and a new error opens.
   */
  movement?: boolean;
  /**
   * A true change of this many points in the brand's presence rate, from this run on (every
   * (query, engine) chance moves by it, as far as a chance can: it stays within 0..1). The run's gross presence is the previous run's plus this
   * change, to within one answer and never short of it; how the change spreads over engines, intents,
   * positions, stance and market counts is what sampling gives. Replaces a movement's drop.
   */
  grossChange?: number;
  /** The run's number of answers (`totalAll`), e.g. 600, spread evenly over queries and engines. */
  answers?: number;
}

export class SandboxDataset {
  readonly hostile: boolean;
  private readonly catalog: CompanyCatalog;
  private readonly sets = new Map<number, SetRecord>();
  private nextRunId: number;

  constructor(options: DatasetOptions = {}) {
    this.hostile = options.hostile ?? false;
    const quiet = options.quiet ?? false;
    this.catalog = companyCatalog(options.company ?? COMPANY_ID, options.extraSets ?? 0);
    // Run ids are global and follow publication order across sets, as in a real service.
    const pending: Array<{ def: QuerySetDef; index: number; at: number }> = [];
    for (const def of this.catalog.sets) {
      for (let index = 0; index < def.runs; index++) {
        const monday = isoWeekMonday(2026, def.firstWeek) + index * def.stepWeeks * WEEK_MS;
        pending.push({ def, index, at: publishedAt(def, monday) });
      }
      const brand = this.brandById(def.brandId) ?? { ...BRANDS[0]!, id: def.brandId, name: 'Foreign brand' };
      this.sets.set(def.id, {
        def,
        brand,
        competitors: this.hostile ? def.competitors.map(hostileName) : def.competitors,
        errors: errorsOf(def, quiet).map((e, k) =>
          this.hostile && k === 0 ? { ...e, note: HOSTILE.errorNote } : e,
        ),
        sources: sourcesOf(def, brand, quiet),
        runs: [],
        quiet,
        hostile: this.hostile,
        shifts: new Map(),
        pins: new Map(),
      });
    }
    pending.sort((a, b) => a.at - b.at || a.def.id - b.def.id);
    let id = this.catalog.firstRunId;
    for (const p of pending) {
      const set = this.sets.get(p.def.id)!;
      set.runs.push(runRecord(p.def, set.brand, p.index, id++));
    }
    this.nextRunId = id;
  }

  private brandById(id: number): BrandDef | undefined {
    return this.catalog.brands.find((b) => b.id === id);
  }

  /** Computes the figures of every published run now, so the first requests answer as fast as the rest. */
  warmUp(): void {
    for (const set of this.sets.values()) {
      if (set.def.companyId !== this.catalog.companyId) continue;
      for (let i = 0; i < set.runs.length; i++) runFigures(set, i);
    }
  }

  /** The credential's company brands. */
  brands(): Array<{ id: number; name: string }> {
    return this.catalog.brands.map((b) => ({ id: b.id, name: b.name }));
  }

  hasBrand(brandId: number): boolean {
    return this.brandById(brandId) !== undefined;
  }

  /** Query sets of one of the company's brands, oldest first. */
  setsOfBrand(brandId: number): Array<{ id: number; name: string; created_at: string }> {
    const brand = this.brandById(brandId);
    return [...this.sets.values()]
      .filter((s) => s.def.companyId === this.catalog.companyId && s.def.brandId === brandId)
      .sort((a, b) => a.def.createdAt - b.def.createdAt)
      .map((s) => ({
        id: s.def.id,
        name: s.def.name,
        created_at: isoWithOffset(s.def.createdAt, brand?.offset ?? 'utc'),
      }));
  }

  /** A set in the company's scope; sets of other companies are as invisible as missing ones. */
  set(querySetId: number): SetRecord | undefined {
    const set = this.sets.get(querySetId);
    return set && set.def.companyId === this.catalog.companyId ? set : undefined;
  }

  /**
   * Appends the next published run (next global id, next period) to a set of the company. With
   * `movement`, that run carries what alerts watch for: presence drops by `MOVEMENT_DROP_POINTS` and
   * a new entry opens in the error register. See PublishOptions.
   */
  publishRun(
    querySetId: number,
    options: PublishOptions = {},
  ): { id: number; display_name: string; created_at: string } {
    const set = this.set(querySetId);
    if (!set) throw new Error(`sandbox: query set ${querySetId} is not in the sandbox company`);
    if (options.answers !== undefined && !(Number.isSafeInteger(options.answers) && options.answers >= 1)) {
      throw new RangeError(`sandbox: answers must be a whole number >= 1 (got ${options.answers})`);
    }
    if (options.grossChange !== undefined && !(Math.abs(options.grossChange) <= 100)) {
      throw new RangeError(
        `sandbox: grossChange must be a number of points from -100 to 100 (got ${options.grossChange})`,
      );
    }
    const run = runRecord(set.def, set.brand, set.runs.length, this.nextRunId++);
    const grossChange = options.grossChange ?? (options.movement ? -MOVEMENT_DROP_POINTS : undefined);
    if (grossChange !== undefined) set.shifts.set(run.index, grossChange);
    if (grossChange !== undefined || options.answers !== undefined) {
      set.pins.set(run.index, { grossChange, answers: options.answers });
    }
    set.runs.push(run);
    if (options.movement) set.errors = [...set.errors, movementError(set, run.index)];
    return { id: run.id, display_name: run.display_name, created_at: run.created_at };
  }

  /** Details as the API shows them: the latest run's label and date, or the set's own for no run. */
  details(set: SetRecord) {
    const latest = set.runs[set.runs.length - 1];
    return {
      query_set_id: set.def.id,
      query_set_name: set.def.name,
      display_name: latest?.display_name ?? '',
      created_at: isoWithOffset(set.def.createdAt, set.brand.offset),
      queries_count: set.def.queriesCount,
      date: dayMonthYear(latest?.publishedAt ?? set.def.createdAt, set.brand.offset),
    };
  }
}

/** The error register entry a movement run opens: a new false claim by the set's first engine. */
function movementError(set: SetRecord, index: number): GravityErrorDef {
  const engine = set.def.engineIds[0] ?? 3;
  return {
    id: `GE-${9000 + index}`,
    title: 'Store closures invented',
    correct: `${set.brand.name} keeps all its shops open; nothing has been announced.`,
    note: null,
    wrong: [{ engine, text: `${set.brand.name} is closing all of its shops this year.` }],
    openedAt: index,
  };
}

function hostileName(c: CompetitorDef): CompetitorDef {
  return c.id === 313 ? { ...c, name: HOSTILE.competitorName } : c;
}

export function createDataset(options: DatasetOptions = {}): SandboxDataset {
  return new SandboxDataset(options);
}

/** The ids tests and the demo rely on, computed from a fresh data set (before any publishRun). */
export const SANDBOX_IDS = (() => {
  const ds = new SandboxDataset();
  const runs = (id: number) => ds.set(id)?.runs.map((r) => r.id) ?? [];
  return {
    companyId: COMPANY_ID,
    brands: { northwind: 1, lumen: 2 },
    sets: { main: 101, secondary: 102, noRuns: 103, lumen: 201, foreign: 999 },
    /** Published run ids per set, oldest first (the API lists them newest first). */
    runs: { 101: runs(101), 102: runs(102), 103: runs(103), 201: runs(201) },
    /** A set id that exists for no one. */
    unknownSet: 4242,
    unknownBrand: 7,
  } as const;
})();
