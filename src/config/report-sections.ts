/**
 * The sections of a set's report, in document order (`reports[].sections`). One list for the config,
 * the templates and the digest's bookmarks.
 */
export const REPORT_SECTIONS = ['overview', 'presence', 'life', 'gravity', 'scout', 'market'] as const;
export type ReportSection = (typeof REPORT_SECTIONS)[number];
