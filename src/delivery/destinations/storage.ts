import type { StorageChannelConfig } from '../../config/storage-channels.js';
import type { Delivery } from '../../outbox/row.js';
import { scrub } from '../../secrets.js';
import { channelFiles } from '../channels/files.js';
import type { EmailContent } from '../content.js';
import type { OnWritten } from '../sent-files.js';
import { createObjectStore } from './storage/index.js';
import { deliveryVariables, objectName } from './storage/names.js';
import { type ObjectStore, StorageFault } from './storage/object-store.js';
import { type ManifestHead, writeDelivery } from './storage/write-delivery.js';
import type { Destination } from './types.js';

/**
 * A storage channel (S3, SFTP, folder): the report's PDF and XLSX files written under stable names,
 * each once and whole with its SHA-256, then the manifest. The channel's name is the row's single
 * recipient, settled like a Slack post: accepted, deferred (a fault worth retrying) or refused (a
 * fault that retrying will not mend; the outbox then fails the row and a failure notice goes out).
 */
export function storageDestination(
  channel: StorageChannelConfig,
  options: { open?: (channel: StorageChannelConfig) => ObjectStore; onWritten?: OnWritten } = {},
): Destination {
  const open = options.open ?? createObjectStore;
  return {
    recipients: async (_message, row) => [row.destination],
    async deliver(message, { row, log, signal }) {
      const recipient = row.destination;
      if (!message.content)
        return {
          outcomes: [
            {
              recipient,
              state: 'refused',
              reply: `channel ${channel.name}: a storage channel keeps report files; alerts and notices go to email or a message channel`,
            },
          ],
        };
      const store = open(channel);
      try {
        const written = await writeDelivery(store, await plan(channel, row, message.content), signal);
        await options.onWritten?.(
          row,
          [recipient],
          channel.name,
          written.map((w) => ({ ...w, location: store.where })),
        );
        const fresh = written.filter((w) => w.written).length;
        log.info({ files: written.length, written: fresh }, `files stored in ${store.where}`);
        return {
          outcomes: [
            {
              recipient,
              state: 'accepted',
              reply: `${fresh} of ${written.length} written to ${store.where}`,
            },
          ],
        };
      } catch (error) {
        const fault =
          error instanceof StorageFault ? error : new StorageFault('transient', (error as Error).message);
        const reply = scrub(`channel ${channel.name}: ${fault.message}`);
        return {
          outcomes: [{ recipient, state: fault.kind === 'permanent' ? 'refused' : 'deferred', reply }],
        };
      } finally {
        await store.close();
      }
    },
    async preview(message, row) {
      if (!message.content) return undefined;
      const { template, vars, files } = await plan(channel, row, message.content);
      return {
        channel: channel.name,
        type: channel.type,
        names: [...files.map((f) => f.name), 'manifest.json'].map((file) =>
          objectName(template, { ...vars, file }),
        ),
      };
    },
  };
}

/**
 * The names, files and manifest head of a delivery to `channel`: the storage channel's own, and the
 * links of an email (links.ts), so both write the same names.
 */
export async function plan(
  channel: StorageChannelConfig,
  row: Delivery,
  content: EmailContent,
  recipient = row.destination,
) {
  const files = await channelFiles(row.report, content);
  const runs = content.digest
    ? content.digest.sets.map((s) => ({
        query_set_id: s.querySetId,
        query_set: s.querySet,
        run_id: s.runId,
        run: s.run,
      }))
    : [
        {
          query_set_id: content.querySet.id,
          query_set: content.querySet.name,
          run_id: content.run.id,
          run: content.run.display_name,
        },
      ];
  const head: ManifestHead = {
    delivery: row.messageId,
    report: row.report,
    account: row.account,
    recipient,
    runs,
  };
  return {
    template: channel.name_template,
    vars: deliveryVariables(row),
    head,
    files: files.map(({ name, path, size, sha256 }) => ({ name, path, size, sha256 })),
  };
}
