import type { Clock } from '../clock.js';
import type { Config } from '../config/index.js';
import { ReportdError } from '../errors/index.js';
import type { Delivery } from '../outbox/row.js';
import type { Store } from '../store/sql.js';
import type { ReportEmailConfig } from './compose/email.js';
import type { DeliveryMessage } from './compose/message.js';
import type { EmailContent } from './content.js';
import { composerKind, composersFor } from './handlers.js';
import type { DeliveryRenderer } from './outbox-options.js';
import { composerParts } from './runtime.js';

/**
 * The message a row would be sent, built by the composer the outbox uses for it (handlers.ts) from
 * the same config, renderer and clock: `deliver --eml`, `--dry-run`, the studio and the demo all
 * preview through here, so a preview is the message a delivery of the same row at the same time
 * sends. The row need not be stored: nothing is read from or written to the outbox.
 */
export async function composeForPreview(
  row: Delivery,
  parts: {
    config: Pick<Config, 'reports' | 'smtp' | 'templates' | 'alerts'>;
    store: Store;
    renderer: DeliveryRenderer;
    clock: Clock;
    signal?: AbortSignal;
    /** The reports as the studio overrides them (locale, theme, templates); the config's otherwise. */
    reports?: readonly ReportEmailConfig[];
  },
): Promise<DeliveryMessage> {
  const fromConfig = composerParts(parts.config as Config, parts.store, parts.renderer);
  const composers = composersFor({ ...fromConfig, ...(parts.reports ? { reports: parts.reports } : {}) });
  const composed = await composers[composerKind(row)](row, {
    store: parts.store,
    clock: parts.clock,
    hasDestination: true,
    signal: parts.signal ?? new AbortController().signal,
  });
  if ('unbuildable' in composed) throw new ReportdError(`${row.report}: ${composed.unbuildable}`);
  if ('renderFailed' in composed) throw new ReportdError(`${row.report}: ${composed.renderFailed}`);
  return composed.message;
}

/** A renderer for a caller that rendered the content its own way already (the studio, the demo). */
export function renderedAlready(content: EmailContent): DeliveryRenderer {
  return { render: async () => content };
}
