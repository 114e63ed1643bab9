import { basename } from 'node:path';
import { type Delivery, EMAIL_DESTINATION } from '../../outbox/row.js';
import type { OutboxOptions } from '../outbox-options.js';
import type { ComposeContext, Composed, Composer } from './message.js';

export interface AlertComposerOptions {
  /** The alert's email (delivery/deliver-alert.ts) and whether it attaches the set's report. */
  messageFor?: OutboxOptions['messageFor'];
  /** The alert's firings as channels post them (delivery/deliver-alert.ts). */
  channelAlertFor?: OutboxOptions['channelAlertFor'];
  renderer: OutboxOptions['renderer'];
}

/**
 * An alert row: built from the firing the store holds, nothing rendered unless the alert attaches
 * the set's report (`attach: [pdf]`, email only). What the alert's config still binds it to is asked
 * of the builder of the row's destination, so an alert that dropped a channel fails that row alone.
 */
export function alertComposer(options: AlertComposerOptions): Composer {
  return (row, context) =>
    row.destination === EMAIL_DESTINATION ? byEmail(row, context, options) : byChannel(row, context, options);
}

async function byChannel(
  row: Delivery,
  context: ComposeContext,
  options: AlertComposerOptions,
): Promise<Composed> {
  if (!context.hasDestination)
    return { unbuildable: `channel "${row.destination}" is no longer in the config` };
  const built = (await options.channelAlertFor?.(row)) ?? { error: 'no alert builder for channel rows' };
  if ('error' in built) return { unbuildable: built.error };
  return { message: { id: row.messageId, event: 'alert.fired', alert: built } };
}

async function byEmail(
  row: Delivery,
  context: ComposeContext,
  options: AlertComposerOptions,
): Promise<Composed> {
  const built = await options.messageFor?.(row, new Date(context.clock.now()));
  if (!built || 'error' in built)
    return { unbuildable: built?.error ?? `no message builder for ${row.kind} deliveries` };
  const message = { id: row.messageId, event: 'alert.fired' as const };
  if (!built.attachReport) return { message: { ...message, email: async () => built } };
  // `attach: [pdf]`: the set's report is rendered for the run, with the report path's retries.
  const started = context.clock.now();
  try {
    const { files } = await options.renderer.render(row, context.signal);
    const attachments = files
      .filter((file) => file.format === 'pdf')
      .map((file) => ({ filename: basename(file.path), path: file.path, contentType: 'application/pdf' }));
    const email = { message: { ...built.message, attachments }, recipients: built.recipients };
    return { message: { ...message, email: async () => email, renderMs: context.clock.now() - started } };
  } catch (error) {
    return { renderFailed: (error as Error).message };
  }
}
