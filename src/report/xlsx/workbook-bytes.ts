import { createHash } from 'node:crypto';
import type ExcelJS from 'exceljs';

/**
 * The same bytes for the same workbook, so a preview and the message sent carry the very same file.
 * exceljs leaves two things to chance: the zip entries' dates (below) and the identifier that ties
 * a data bar's rule to its Excel 2010 extension (`stableExtensionId`).
 */

/**
 * The workbook as a file. JSZip dates every entry at the moment exceljs adds it (its `date` option
 * is not reachable through exceljs), so two renders of one run a second apart differed in the
 * entries' time fields; every entry is dated the workbook's own `modified` instead (the render's
 * clock, as docProps/core.xml has it).
 */
export async function workbookBytes(workbook: ExcelJS.Workbook): Promise<Buffer> {
  const zip = Buffer.from(await workbook.xlsx.writeBuffer());
  redateZip(zip, workbook.modified ?? workbook.created);
  return zip;
}

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

/**
 * Sets the MS-DOS time and date of every entry of `zip` (in place) to `date`, in UTC as JSZip writes
 * them, in the central directory and in each local header (APPNOTE.TXT §4.3.7, §4.3.12, §4.4.6).
 * False, and the zip left as it was, when its layout is not the plain one JSZip writes (no comment,
 * no zip64).
 */
function redateZip(zip: Buffer, date: Date): boolean {
  const end = zip.length - 22;
  if (end < 0 || zip.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) return false;
  const time = (date.getUTCHours() << 11) | (date.getUTCMinutes() << 5) | (date.getUTCSeconds() >> 1);
  const day = ((date.getUTCFullYear() - 1980) << 9) | ((date.getUTCMonth() + 1) << 5) | date.getUTCDate();
  const count = zip.readUInt16LE(end + 10);
  const headers: [number, number][] = [];
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < count; i++) {
    if (at + 46 > end || zip.readUInt32LE(at) !== CENTRAL_FILE_HEADER) return false;
    const local = zip.readUInt32LE(at + 42);
    if (local + 30 > end || zip.readUInt32LE(local) !== LOCAL_FILE_HEADER) return false;
    headers.push([at + 12, local + 10]);
    at += 46 + zip.readUInt16LE(at + 28) + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  for (const [central, local] of headers) {
    for (const field of [central, local]) {
      zip.writeUInt16LE(time, field);
      zip.writeUInt16LE(day, field + 2);
    }
  }
  return true;
}

/**
 * `rule` with the identifier of its x14 extension (a data bar's `{GUID}`, which links the rule to
 * its Excel 2010 part of the sheet) drawn from `key` instead of at random: exceljs draws a new
 * UUID for it on every write, overwriting any given, so the property ignores what it is set to.
 * `key` names the rule within the workbook (sheet, range, priority). Any GUID serves (it only has
 * to match between the two places exceljs writes it); this one is a name-based UUID's shape.
 */
export function stableExtensionId<R extends object>(rule: R, key: string): R {
  const hex = createHash('sha1').update(key).digest('hex');
  const id = `{${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}}`;
  return Object.defineProperty(rule, 'x14Id', {
    get: () => id.toUpperCase(),
    set: () => undefined,
    enumerable: true,
  });
}
