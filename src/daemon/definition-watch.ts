import type { Clock } from '../clock.js';
import type { Logger } from '../log.js';
import { printable } from '../printable.js';
import { GONE_AFTER_BEATS, HEARTBEAT_MS } from '../store/instances.js';
import {
  type DefinitionConflict,
  definitionConflicts,
  pruneFingerprints,
  recordFingerprints,
} from '../store/report-fingerprints.js';
import type { Store } from '../store/sql.js';

/**
 * One definition per report (issue 25 item 6). Each daemon records the fingerprint of every report it
 * serves (report-fingerprint.ts) under its instance; a reload starts a new instance, so its new
 * definitions replace the old ones. When live instances disagree on a report, no daemon claims that
 * report's deliveries (the outbox asks `held()` before each claim) until they agree again: which list
 * would be right is the operator's call, not whichever daemon happens to claim the row. Slots still
 * fire and enqueue as usual, so the rows are there, waiting, and go out once when the configs agree.
 * A change in the conflicts is logged once (an error naming the report and the instances), as is the
 * end of one; never the definitions.
 */
export class DefinitionWatch {
  private held: ReadonlySet<string> = new Set();
  private said = '[]';
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<ReadonlySet<string>> | undefined;

  constructor(
    private readonly options: {
      store: Store;
      clock: Clock;
      logger: Logger;
      instance: string;
      fingerprints: ReadonlyMap<string, string>;
      heartbeatMs?: number;
    },
  ) {}

  /** Records this instance's fingerprints, then looks again on a timer (so a daemon without a worker says so too). */
  async start(everyMs = this.options.heartbeatMs ?? HEARTBEAT_MS): Promise<void> {
    const { store, instance, fingerprints } = this.options;
    await recordFingerprints(store, instance, fingerprints);
    // Housekeeping at start, as the instances' own: rows of pruned instances go.
    await pruneFingerprints(store);
    await this.check().catch(() => undefined);
    this.timer = setInterval(() => void this.check().catch(() => undefined), everyMs);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }

  /**
   * The reports this daemon serves that live instances define differently, read from the store now
   * (one query; concurrent callers share it). A failed read keeps the last answer and rejects.
   */
  check(): Promise<ReadonlySet<string>> {
    this.checking ??= this.read().finally(() => {
      this.checking = undefined;
    });
    return this.checking;
  }

  /** The last answer of `check`, without a query. */
  heldNow(): ReadonlySet<string> {
    return this.held;
  }

  private async read(): Promise<ReadonlySet<string>> {
    const { store, clock, fingerprints } = this.options;
    const heartbeatMs = this.options.heartbeatMs ?? HEARTBEAT_MS;
    const all = await definitionConflicts(store, clock.now() - GONE_AFTER_BEATS * heartbeatMs);
    const mine = all.filter((c) => fingerprints.has(c.report));
    this.say(mine);
    this.held = new Set(mine.map((c) => c.report));
    return this.held;
  }

  private say(conflicts: DefinitionConflict[]): void {
    const key = JSON.stringify(conflicts.map((c) => [c.report, c.instances]));
    if (key === this.said) return;
    const before = this.held;
    this.said = key;
    const { logger } = this.options;
    for (const c of conflicts) {
      logger.error(
        { report: c.report, instances: c.instances, definitions: c.definitions },
        `report "${printable(c.report)}" has ${c.definitions} different definitions among the live instances ` +
          `(${c.instances.map((i) => printable(i)).join(', ')}); its deliveries wait until the configs agree`,
      );
    }
    for (const report of before) {
      if (!conflicts.some((c) => c.report === report)) {
        logger.info(
          { report },
          `report "${printable(report)}" has one definition again; its deliveries go on`,
        );
      }
    }
  }
}
