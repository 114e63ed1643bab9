/**
 * File names from API strings (brand, query set, run label), safe on every file system reportd's
 * output may land on: ext4, APFS, NTFS/SMB shares and zip attachments in mail clients.
 */

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;
/** Bytes, not characters: ext4 and most others cap a name at 255 bytes; leave room for suffixes. */
const MAX_BYTES = 150;
/** Room always kept for the last part of a name (the run label). */
const MAX_LAST_BYTES = 60;
const SEPARATOR = ' - ';

/** One name part: forbidden and control characters dropped, whitespace collapsed. */
export function safeNamePart(text: string): string {
  return (
    text
      .normalize('NFC')
      .replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')
      .replace(/[/\\:*?"<>|]/g, ' ')
      // Bidi overrides and zero-width characters can disguise a name's real extension.
      .replace(/[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
      .replace(/\s+/g, ' ')
      .trim()
  );
}

function truncateBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let out = '';
  for (const char of text) {
    if (Buffer.byteLength(out + char) > max) break;
    out += char;
  }
  return out;
}

/**
 * `Northwind Coffee - Coffee buyers DACH - W46 2026` from its parts, without extension. Never empty,
 * never hidden (no leading dot), no trailing dot or space (Windows drops them), no reserved device
 * name, at most 150 bytes.
 */
export function safeFileName(parts: readonly string[], fallback = 'report'): string {
  const safe = parts.map(safeNamePart).filter((part) => part.length > 0);
  // The last part (the run label) is what tells two files of one set apart: a long brand or set
  // name is cut to make room for it, never the label (two runs would overwrite each other's file).
  const last = safe.length > 1 ? truncateBytes(safe.pop()!, MAX_LAST_BYTES) : '';
  const head = truncateBytes(safe.join(SEPARATOR), MAX_BYTES - Buffer.byteLength(last + SEPARATOR)).replace(
    /[.\s-]+$/,
    '',
  );
  const joined = last ? (head ? `${head}${SEPARATOR}${last}` : last) : head;
  let name = truncateBytes(joined, MAX_BYTES)
    .replace(/^[.\s-]+/, '')
    .replace(/[.\s-]+$/, '');
  if (name.length === 0) name = fallback;
  if (WINDOWS_RESERVED.test(name)) name = `_${name}`;
  return name;
}
