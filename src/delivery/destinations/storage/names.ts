import type { NAME_VARIABLES } from '../../../config/storage-channels.js';

export type NameVariables = Record<(typeof NAME_VARIABLES)[number], string>;

/**
 * A value as one safe path segment: letters, digits, ".", "-" and "_" only, never "." or ".."
 * (API strings and report names end up here, and must not climb out of the folder or the prefix).
 */
export function segment(value: string): string {
  const safe = value
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[.-]+/, '')
    .slice(0, 120);
  return safe || '_';
}

/**
 * The object name of one file: the channel's `name_template` with each `{{variable}}` replaced by
 * its value as a safe segment. Fixed by the delivery (its queue day, run and file), so a retried
 * delivery writes the same names.
 */
export function objectName(template: string, vars: NameVariables): string {
  return template
    .replace(/\{\{\s*([a-z]+)\s*\}\}/g, (_all, key: keyof NameVariables) => segment(vars[key] ?? ''))
    .split('/')
    .filter((part) => part !== '' && part !== '.' && part !== '..')
    .join('/');
}

/** The variables of a delivery, `file` left for each file. */
export function deliveryVariables(row: {
  id: number;
  report: string;
  account: string | null;
  createdAt: number;
  querySetId: number;
  runId: number;
  covers?: unknown;
}): Omit<NameVariables, 'file'> {
  const day = new Date(row.createdAt).toISOString();
  return {
    report: row.report,
    account: row.account ?? 'all',
    yyyy: day.slice(0, 4),
    mm: day.slice(5, 7),
    dd: day.slice(8, 10),
    // A digest covers many runs: its ordinal in the report stays the same across its retries.
    run: row.covers ? `digest-${row.runId}` : String(row.runId),
    set: String(row.querySetId),
  };
}
