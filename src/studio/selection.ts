import type { ServerResponse } from 'node:http';
import type { Config } from '../config/index.js';
import { ORIENTATIONS, PAGE_SIZES } from '../config/paper.js';
import { REPORT_SECTIONS, type ReportSection } from '../config/report-sections.js';
import type { PageSetup } from '../report/page.js';
import { BUILT_IN_THEME, type Selection } from './session.js';

/**
 * What a studio request asks to see (the pickers' query string), and the key its render is kept by.
 */

export function selectionOf(url: URL): Selection {
  const get = (name: string) => url.searchParams.get(name) || undefined;
  const number = (name: string) => (get(name) && /^\d+$/.test(get(name)!) ? Number(get(name)) : undefined);
  const paper = PAGE_SIZES.find((s) => s === get('paper'));
  const orientation = ORIENTATIONS.find((o) => o === get('orientation'));
  const page: PageSetup | undefined =
    paper || orientation ? { size: paper ?? 'A4', orientation: orientation ?? 'portrait' } : undefined;
  const mode = get('mode') === 'digest' ? 'digest' : get('mode') === 'per_set' ? 'per_set' : undefined;
  const sections = get('sections')
    ?.split(',')
    .filter((s): s is ReportSection => (REPORT_SECTIONS as readonly string[]).includes(s));
  return {
    account: get('account'),
    querySetId: number('set'),
    runId: number('run'),
    report: get('report'),
    locale: get('locale'),
    ...(page ? { page } : {}),
    ...(mode ? { mode } : {}),
    ...(get('theme') ? { theme: get('theme') } : {}),
    ...(sections?.length ? { sections } : {}),
  };
}

export const keyOf = (selection: Selection) => JSON.stringify(selection);

/** The paths that render a selection: a report name there must be one the config has. */
const RENDERING = /^\/(preview\/|api\/messages$|api\/pages$|pdf$|pages\/)/;

/**
 * Answers 404 for a selection naming a report (or a report's theme) the config does not have, listing
 * those it has, and returns true. An unknown name would otherwise render the default report under a
 * key of its own: a page (or a script) asking for endless names would fill the studio's memory.
 */
export function refuseUnknownReport(
  res: ServerResponse,
  path: string,
  selection: Selection,
  config: Config,
): boolean {
  if (!RENDERING.test(path)) return false;
  const names = config.reports.map((r) => r.name);
  const asked = [selection.report, selection.theme === BUILT_IN_THEME ? undefined : selection.theme];
  const unknown = asked.find((name) => name !== undefined && !names.includes(name));
  if (unknown === undefined) return false;
  const known = names.length > 0 ? names.map((name) => JSON.stringify(name)).join(', ') : 'none';
  res
    .writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' })
    .end(`no report named ${JSON.stringify(unknown)} in the config (its reports: ${known})\n`);
  return true;
}
