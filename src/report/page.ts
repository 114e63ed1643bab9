import { type Orientation, PAGE_SIZES, type PageSize } from '../config/paper.js';
import { UsageError } from '../errors/index.js';

/**
 * The paper a PDF is printed on. Chromium knows the sizes by name (`page.pdf({ format, landscape })`);
 * the millimetres here are only for the stylesheet, which sizes the cover to fill the first page and
 * switches the wide layouts on for landscape (`page-landscape` on `<body>`).
 */

export interface PageSetup {
  size: PageSize;
  orientation: Orientation;
}

export const DEFAULT_PAGE: PageSetup = { size: 'A4', orientation: 'portrait' };

/** Portrait width × height in millimetres (ISO 216; US Letter 8.5 × 11 in, Legal 8.5 × 14 in). */
const PORTRAIT_MM: Readonly<Record<PageSize, readonly [number, number]>> = {
  A4: [210, 297],
  Letter: [215.9, 279.4],
  Legal: [215.9, 355.6],
};

/** The margins pdf.ts prints with a header and footer (mm); keep the two in step. */
export const PAGE_MARGINS_MM = { top: 16, bottom: 14, left: 14, right: 14 } as const;

/** Width and height of the sheet in millimetres, as it is held (landscape swaps them). */
export function pageDimensionsMm(page: PageSetup): { width: number; height: number } {
  const [short, long] = PORTRAIT_MM[page.size];
  return page.orientation === 'landscape' ? { width: long, height: short } : { width: short, height: long };
}

/** What the stylesheet needs: a class per orientation and the printable height for the cover. */
export function pageView(page: PageSetup) {
  const { height } = pageDimensionsMm(page);
  return {
    size: page.size,
    orientation: page.orientation,
    className: `page-${page.size.toLowerCase()} page-${page.orientation}`,
    contentHeightMm: Math.floor(height - PAGE_MARGINS_MM.top - PAGE_MARGINS_MM.bottom),
  };
}

/** `--page a4|letter|legal` (any case) → the size; anything else is a UsageError naming the flag. */
export function parsePageSize(value: string, flag = '--page'): PageSize {
  const size = PAGE_SIZES.find((name) => name.toLowerCase() === value.trim().toLowerCase());
  if (!size) throw new UsageError(`${flag} takes ${PAGE_SIZES.join(', ')}, got "${value}"`);
  return size;
}
