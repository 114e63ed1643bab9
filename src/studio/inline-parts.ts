import type Mail from 'nodemailer/lib/mailer/index.js';

/**
 * The email tab's HTML with its inline parts in place: a mail client finds the logo by `cid:`, a
 * browser cannot, so each `cid:` an inline part answers becomes that part's `data:` URL (the only
 * kind the preview's policy loads). The message itself, as sent, keeps its `cid:` parts.
 */
export function withInlineParts(html: string, attachments: Mail.Options['attachments']): string {
  let shown = html;
  for (const part of attachments ?? []) {
    if (!part.cid || !Buffer.isBuffer(part.content) || typeof part.contentType !== 'string') continue;
    const url = `data:${part.contentType};base64,${part.content.toString('base64')}`;
    shown = shown.split(`cid:${part.cid}`).join(url);
  }
  return shown;
}
