import {
  DEFAULT_ALPHA,
  isHeadline,
  type Judged,
  judgeDocument,
  type Measured,
} from '../../insight/changes.js';
import { figureOf, type InsightRow } from '../../insight/sample-sizes.js';

/**
 * The changes one report (or one set's section of a digest) judges, as families: every judged delta
 * of the document joins while the model is built, and once it is built the families are judged
 * together (`settle`), so each delta's verdict and interval come from the whole document, not from
 * the delta alone.
 *
 * Two families share the document's α (`judgeDocument`): the headline figures — weighted and gross
 * presence, the cards the overview, the story and the email lead with — hold half of it, every other
 * judged figure (stance shares, Gravity+ and Gravity−, presence per engine) the rest. In a world where
 * nothing changed, the chance that a report calls anything a likely change stays at most α; a true
 * 10-point fall of presence on 600 answers is still found as a headline figure in about 85 % of
 * reports (test/insight/families-simulation.test.ts), where one family of all twelve figures finds it
 * in fewer than 80 %.
 * Each figure joins once: a card shown on two pages is one delta, and rows of one figure
 * (`figureOf`) count once.
 */

type Ref = Pick<InsightRow, 'endpoint' | 'field' | 'dimension' | 'dimension_id'>;

/** What a document says of its families once they are judged. */
export interface FamilySummary {
  /** Every change judged in the document. */
  size: number;
  /** Of them, the headline figures (judged among themselves). */
  headline: number;
  /** How many are likely changes. */
  likely: number;
  /** The document's α (its false discovery rate). */
  alpha: number;
}

interface Member {
  key: string;
  measured: Measured;
  headline: boolean;
  /** Everything that shows this figure, told its verdict at `settle`. */
  show: ((judged: Judged) => void)[];
}

export class ReportFamily {
  private readonly members = new Map<string, Member>();
  private readonly verdicts = new Map<string, Judged>();
  private summary: FamilySummary | undefined;

  constructor(readonly alpha = DEFAULT_ALPHA) {}

  /** A measured change joins; `show` is called with its verdict when the family is settled. */
  add(ref: Ref, measured: Measured, show: (judged: Judged) => void): void {
    if (this.summary) throw new Error('a settled family takes no more changes');
    if (measured.p === null) return;
    const key = figureOf(ref);
    const member = this.members.get(key);
    if (member) {
      member.show.push(show);
      return;
    }
    const headline = isHeadline(ref);
    this.members.set(key, { key, measured, headline, show: [show] });
  }

  /** Judges the families (once) and tells every member's views their verdict. */
  settle(): FamilySummary {
    if (this.summary) return this.summary;
    const all = [...this.members.values()];
    const headlines = new Set(all.filter((m) => m.headline).map((m) => m.measured));
    judgeDocument(
      all.map((m) => m.measured),
      (measured) => headlines.has(measured),
      this.alpha,
    ).forEach((judged, i) => {
      const member = all[i]!;
      this.verdicts.set(member.key, judged);
      for (const show of member.show) show(judged);
    });
    const likely = [...this.verdicts.values()].filter((j) => j.significance === 'likely').length;
    const headline = all.filter((m) => m.headline).length;
    this.summary = { size: all.length, headline, likely, alpha: this.alpha };
    return this.summary;
  }

  /** The verdict on a figure, once settled; undefined when it was not judged. */
  verdictOf(ref: Ref): Judged | undefined {
    return this.verdicts.get(figureOf(ref));
  }
}
