/**
 * The paper sizes and orientations a report's `page:` takes (and `render --page`, the studio's
 * paper menu). Chromium knows the sizes by name; report/page.ts holds what they measure.
 */
export const PAGE_SIZES = ['A4', 'Letter', 'Legal'] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const ORIENTATIONS = ['portrait', 'landscape'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];
