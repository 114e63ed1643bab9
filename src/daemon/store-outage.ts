import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import type { ChannelSender } from '../delivery/channels/types.js';
import { channelNotice, type NoticeFields, noticeMessage } from '../delivery/compose/notice-text.js';
import type { Mailer } from '../delivery/destinations/smtp-mailer.js';
import type { Logger } from '../log.js';
import type { Incident } from '../notify/incidents.js';
import { scrub } from '../secrets.js';

/**
 * Ops hear of a store that refuses writes even though the outbox lives in that store: this watch
 * probes the store with a write (the instance heartbeat) on a timer of its own, and once it has
 * failed for `notify_on_failure.store_unreachable_after` minutes sends one notice to each of
 * `notify_on_failure`'s destinations directly (the mailer, the channels' senders), then one
 * "resolved" to the same destinations when a write goes through again. What was sent is kept in
 * memory only: per daemon, so two daemons that both lose the store each send theirs (the text names
 * the host). A destination that refused is tried again at the next probe.
 */

/** Probes at a quarter of the threshold, at least every second and at most every 15 s. */
export function probeIntervalMs(thresholdMs: number): number {
  return Math.min(15_000, Math.max(1_000, Math.floor(thresholdMs / 4)));
}

export interface StoreOutageOptions {
  config: Config;
  clock: Clock;
  logger: Logger;
  /** A write to the store; rejects when the store takes none. */
  probe: () => Promise<void>;
  mailer?: Mailer;
  channels: ReadonlyMap<string, ChannelSender>;
}

export class StoreOutageWatch {
  private downSince?: number;
  private lastError = '';
  /** Destinations told of the outage in hand (`email` or a channel's name). */
  private readonly told = new Set<string>();
  /** Destinations still owed the "resolved" notice of an outage that ended. */
  private owedRecovery: { incident: Incident; destinations: Set<string> } | undefined;
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private readonly thresholdMs: number;

  constructor(private readonly options: StoreOutageOptions) {
    this.thresholdMs = options.config.notify_on_failure.store_unreachable_after * 60_000;
  }

  /** Starts the probe timer (real time, unref'd: it says how the store answers now, whatever the clock). */
  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.tick().finally(() => {
        this.running = undefined;
      });
    }, probeIntervalMs(this.thresholdMs));
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One probe and what follows from it; exposed for tests on a fake clock. */
  async tick(): Promise<void> {
    const now = this.options.clock.now();
    let ok = true;
    try {
      await this.options.probe();
    } catch (error) {
      ok = false;
      this.lastError = scrub(((error as Error).message ?? String(error)).split('\n')[0] ?? '');
    }
    if (!ok) {
      if (this.downSince === undefined) {
        this.downSince = now;
        this.options.logger.warn({ err: this.lastError }, 'store refuses writes');
      }
      if (now - this.downSince >= this.thresholdMs) await this.tell(this.opened(), this.told);
      return;
    }
    if (this.downSince !== undefined) {
      this.options.logger.info({ downForMs: now - this.downSince }, 'store takes writes again');
      if (this.told.size > 0) {
        this.owedRecovery = { incident: this.cleared(now), destinations: new Set(this.told) };
      }
      this.downSince = undefined;
      this.told.clear();
    }
    const owed = this.owedRecovery;
    if (owed) {
      const done = new Set<string>();
      await this.tell(owed.incident, done, owed.destinations);
      for (const destination of done) owed.destinations.delete(destination);
      if (owed.destinations.size === 0) this.owedRecovery = undefined;
    }
  }

  private destinations(): string[] {
    const { notify_on_failure: notify } = this.options.config;
    return [...(notify.email.length > 0 && this.options.mailer ? ['email'] : []), ...notify.channels];
  }

  private opened(): Incident {
    return {
      id: 0,
      key: `store_unreachable:${hostname()}`,
      kind: 'store_unreachable',
      report: null,
      detail: `reportd on ${hostname()} (pid ${process.pid}) cannot write to its store: ${this.lastError}. Nothing is synced, scheduled or sent while it lasts.`,
      openedAt: this.downSince!,
      clearedAt: null,
      clearedDetail: null,
    };
  }

  private cleared(at: number): Incident {
    return {
      ...this.opened(),
      clearedAt: at,
      clearedDetail: `reportd on ${hostname()} writes to its store again; missed slots run once, as after a restart.`,
    };
  }

  /** Sends `incident` to every destination not yet in `done` (of `only`, when given), adding those that took it. */
  private async tell(incident: Incident, done: Set<string>, only?: ReadonlySet<string>): Promise<void> {
    const { mailer, channels, clock, logger, config } = this.options;
    const kind = incident.clearedAt === null ? 'opened' : 'cleared';
    for (const destination of this.destinations()) {
      if (done.has(destination) || (only && !only.has(destination))) continue;
      const notice: NoticeFields = {
        kind,
        createdAt: clock.now(),
        recipients: destination === 'email' ? config.notify_on_failure.email : [],
        messageId: `<reportd-store-${kind}-${randomBytes(6).toString('hex')}@reportd.invalid>`,
        // Sent once from memory, never retried from a row: no earlier attempt for Slack to look for.
        attempts: 1,
      };
      try {
        if (destination === 'email') {
          await mailer!.send(noticeMessage(notice, incident, config.smtp?.from ?? 'reportd'));
        } else {
          const sender = channels.get(destination);
          if (!sender) continue;
          const result = await sender.notice(channelNotice(notice, incident, clock.now()));
          if (result.state !== 'accepted') throw new Error(result.reply);
        }
        done.add(destination);
        logger.info({ destination, notice: kind }, 'store outage notice sent');
      } catch (error) {
        logger.warn(
          { destination, err: (error as Error).message },
          'store outage notice not sent; trying again',
        );
      }
    }
  }
}
