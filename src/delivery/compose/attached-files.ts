import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type Mail from 'nodemailer/lib/mailer/index.js';
import type { SentFile } from '../sent-files.js';

/**
 * The report files an email attaches (its inline logo left out), each with its size and SHA-256 as
 * the reader receives it: the record of what was sent (`history --files`).
 */
export async function attachedFiles(message: Mail.Options): Promise<SentFile[]> {
  const out: SentFile[] = [];
  for (const attachment of message.attachments ?? []) {
    if (attachment.cid || typeof attachment.path !== 'string' || !attachment.filename) continue;
    const bytes = await readFile(attachment.path);
    const name = String(attachment.filename);
    out.push({
      file: name,
      object: name,
      size: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
      location: 'attachment',
    });
  }
  return out;
}
