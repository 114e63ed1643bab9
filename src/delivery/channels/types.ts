import type { EmailContent } from '../content.js';

/**
 * The small interface every channel sender implements, so the outbox, failure notices and alerts
 * reuse one implementation per provider: `send(delivery, content) → result`.
 */

/** What is being delivered, independent of the provider. */
export interface ChannelDelivery {
  /** Stable per delivery (the outbox row's id string): Standard Webhooks' `webhook-id`. */
  id: string;
  event: 'report.delivered' | 'alert.fired';
  report: string;
  account: string | null;
  /** When this attempt is made (ms since the epoch; the injected clock's now). */
  at: number;
  /**
   * A checkpoint an earlier attempt of this delivery saved (Slack: the `ts` of the message it
   * already posted), so a retry resumes instead of repeating what reached the provider.
   */
  resume?: string | null;
  /**
   * Saves a checkpoint; the outbox stores it on the row while it still holds the claim. Awaited, so
   * the checkpoint is stored before the sender takes its next step.
   */
  checkpoint?: (state: string) => Promise<void>;
  /**
   * An earlier attempt of this delivery may have reached the provider without its answer being
   * recorded (a crash, a lost or slow answer): a sender that can look (Slack) checks before posting.
   */
  lookFirst?: boolean;
  /** Epoch ms the delivery was queued: nothing of it can be older (where to start looking). */
  since?: number;
  /**
   * Called right before the message is posted: renews this worker's lease, fenced by its token, and
   * throws when the row is another worker's now (this one was paused past its lease before posting).
   */
  confirm?: () => Promise<void>;
}

/** The provider's answer, in the outbox's per-destination terms (delivery_recipients states). */
export type ChannelResult =
  | { state: 'accepted'; reply: string }
  /** Worth trying again (429, 5xx, a network fault); `retryAfterMs` from the provider's Retry-After. */
  | { state: 'deferred'; reply: string; retryAfterMs?: number }
  /** Will not pass by retrying (another 4xx, an invalid token, an unknown channel). */
  | { state: 'refused'; reply: string };

/**
 * A failure notice (delivery/compose/notice-text.ts): no report, run or files, only what happened. `title` and
 * `text` are plain text that quotes API and SMTP replies, so every sender treats them as untrusted.
 */
export interface ChannelNotice {
  /** Stable per notice row (its Message-ID's stem): Standard Webhooks' `webhook-id`. */
  id: string;
  event: 'incident.opened' | 'incident.cleared';
  /** As `ChannelDelivery.lookFirst`: an earlier attempt of this notice may have been posted. */
  lookFirst?: boolean;
  /** As `ChannelDelivery.since`. */
  since?: number;
  /** As `ChannelDelivery.confirm`. */
  confirm?: () => Promise<void>;
  at: number;
  title: string;
  text: string;
  /** The incident as the store holds it (epoch ms); each sender spells its own payload from it. */
  incident: {
    id: number;
    key: string;
    kind: string;
    report: string | null;
    detail: string;
    openedAt: number;
    clearedAt: number | null;
    clearedDetail: string | null;
  };
}

export interface ChannelSender {
  readonly type: 'slack' | 'teams' | 'webhook';
  send(delivery: ChannelDelivery, content: EmailContent, signal?: AbortSignal): Promise<ChannelResult>;
  /** Posts a failure notice (one message, no files), answering in the same terms as `send`. */
  notice(notice: ChannelNotice, signal?: AbortSignal): Promise<ChannelResult>;
  /** The request(s) `send` would make, for `reportd deliver --dry-run` (secrets left out). */
  preview(delivery: ChannelDelivery, content: EmailContent): Promise<unknown>;
  /** Posts an alert's firings (one message, no files), answering in the same terms as `send`. */
  alert: ChannelAlertSender['alert'];
}

/**
 * An alert for a channel (issue 13 through issue 14's senders): what fired for one run of a set. The
 * strings come from the API and the metrics layer, so every sender treats them as untrusted.
 */
export interface ChannelAlert {
  alert: string;
  account: string;
  brand: string;
  querySet: { id: number; name: string };
  run: { id: number; label: string };
  previousRun: { id: number; label: string };
  firings: readonly {
    kind: string;
    headline: string;
    metric?: string;
    /** The metric as people read it ("Gross presence on ChatGPT"); absent in firings stored before. */
    metricName?: string;
    member?: string;
    /** The run the change was measured against (`id` null: a mean of runs); absent on events. */
    comparedWith?: { id: number | null; label: string };
    /** The verdict, judged with the other figures the rule watches (`likely` for a fenced rule's firing). */
    significance?: 'likely' | 'unclear' | 'unknown';
    /** In points, at `level` (the level Holm's procedure asks for, so it agrees with the verdict). */
    interval?: { low: number; high: number } | null;
    level?: number | null;
    p?: number | null;
    q?: number | null;
    familySize?: number | null;
    forRuns?: number;
    n?: { before: number | null; after: number | null } | null;
    before?: string;
    after?: string;
    change?: string;
    errors?: readonly { id: string; title: string; correct: string; claims: string[]; engines: string[] }[];
  }[];
}

/** Senders that post alerts (`alert.fired`); every configured channel type does. */
export interface ChannelAlertSender {
  alert(delivery: ChannelDelivery, alert: ChannelAlert, signal?: AbortSignal): Promise<ChannelResult>;
}
