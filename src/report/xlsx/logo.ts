import type ExcelJS from 'exceljs';
import type { Logo } from '../theme/logo.js';

/**
 * The report's logo in the workbook: the PNG reportd drew (theme/logo.ts), never the author's file,
 * placed on the About sheet to the right of its text so it covers no cell that holds a value.
 */

/** Height the logo is shown at on the sheet (pixels); its width follows its shape. */
const SHOWN_HEIGHT = 48;

/** One image part per book, however many About sheets (a digest has one per set) show it. */
const imageIds = new WeakMap<ExcelJS.Workbook, number>();

export function placeLogo(workbook: ExcelJS.Workbook, ws: ExcelJS.Worksheet, logo: Logo | undefined): void {
  if (!logo) return;
  let id = imageIds.get(workbook);
  if (id === undefined) {
    id = workbook.addImage({ buffer: logo.png as unknown as ExcelJS.Buffer, extension: 'png' });
    imageIds.set(workbook, id);
  }
  const width = Math.round((logo.width * SHOWN_HEIGHT) / logo.height);
  ws.addImage(id, {
    tl: { col: ws.columnCount + 1, row: 0 },
    ext: { width, height: SHOWN_HEIGHT },
    editAs: 'oneCell',
  });
}
