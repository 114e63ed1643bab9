import { durationSeconds } from '../config/sections.js';
import type { StorageChannelConfig } from '../config/storage-channels.js';
import { reportLocale } from '../locale/locale.js';
import type { Delivery } from '../outbox/row.js';
import { channelFiles } from './channels/files.js';
import type { ReportEmailConfig } from './compose/email.js';
import type { EmailContent } from './content.js';
import { createObjectStore } from './destinations/storage/index.js';
import { objectName } from './destinations/storage/names.js';
import type { ObjectStore } from './destinations/storage/object-store.js';
import { writeDelivery } from './destinations/storage/write-delivery.js';
import { plan } from './destinations/storage.js';
import type { LinksView, LinkUpload, SentFile } from './sent-files.js';

/** An email's files as links (`email.attach: links`, or `auto` over the cap). */
export interface EmailLinks extends LinkUpload {
  view: LinksView;
  /** The record of what each reader got: the linked files at the store. */
  files: SentFile[];
}

/**
 * The links of a report email, or undefined when its files travel as attachments: `attach: files`,
 * or `auto` while the files fit in `max_attachment_mb`. The links are signed at `now` for
 * `link_expiry` (SigV4 needs no network for that), so composing never writes anything; the upload is
 * the delivery's.
 */
export async function emailLinks(options: {
  report: ReportEmailConfig;
  content: EmailContent;
  row: Delivery;
  storage: ReadonlyMap<string, StorageChannelConfig>;
  now: number;
  open?: (channel: StorageChannelConfig) => ObjectStore;
}): Promise<EmailLinks | undefined> {
  const { report, content, row } = options;
  const email = report.email;
  const attach = email?.attach ?? 'files';
  if (!email || attach === 'files') return undefined;
  const files = await channelFiles(row.report, content);
  const capBytes = (report.max_attachment_mb ?? 10) * 1024 * 1024;
  if (attach === 'auto' && files.reduce((sum, f) => sum + f.size, 0) <= capBytes) return undefined;
  const channel = email.links_from === undefined ? undefined : options.storage.get(email.links_from);
  // The config check refuses these; a definition changed under a live daemon lands here.
  if (channel?.type !== 's3')
    throw new Error(`report "${report.name}": links_from "${email.links_from ?? ''}" is not an s3 channel`);
  const open = options.open ?? createObjectStore;
  const expiry = durationSeconds(email.link_expiry ?? '7d');
  const reader = [...email.to, ...(email.cc ?? []), ...(email.bcc ?? [])].join(', ');
  const planned = await plan(channel, row, content, reader);
  const signer = open(channel);
  const locale = reportLocale(report.locale, report.timezone ?? 'UTC');
  try {
    const signedAt = new Date(options.now);
    const linked = await Promise.all(
      planned.files.map(async (file) => {
        const object = objectName(planned.template, { ...planned.vars, file: file.name });
        const url = await signer.presign?.(object, expiry, signedAt);
        if (!url) throw new Error(`channel ${channel.name}: this store signs no links`);
        return { file, object, url };
      }),
    );
    return {
      view: {
        files: linked.map(({ file, url }) => ({
          name: file.name,
          url,
          size:
            file.size < 1024 * 1024
              ? `${locale.number(Math.ceil(file.size / 1024), 0)} KB`
              : `${locale.number(file.size / 1024 / 1024, 1)} MB`,
        })),
        until: locale.dateTime(new Date(options.now + expiry * 1000)),
      },
      files: linked.map(({ file, object }) => ({
        file: file.name,
        object,
        size: file.size,
        sha256: file.sha256,
        location: signer.where,
      })),
      channel: channel.name,
      async upload(signal) {
        const store = open(channel);
        try {
          await writeDelivery(store, planned, signal);
        } finally {
          await store.close();
        }
      },
    };
  } finally {
    await signer.close();
  }
}
