import { describe, expect, it } from 'vitest';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel } from '../../src/report/model/index.js';
import { loadReportTemplates } from '../../src/report/templates.js';
import { fixtureSnapshot } from './fixtures.js';

/** `reports[].sections` and `reports[].detail` choose what each set's document prints. */
const meta = { generatedAt: new Date('2026-11-23T08:00:00Z'), version: 'test' };
const html = (contents: Parameters<typeof renderReportHtml>[3]) =>
  renderReportHtml(buildReportModel(fixtureSnapshot(), [], meta), loadReportTemplates(), undefined, contents)
    .html;
const sectionIds = (page: string) =>
  [...page.matchAll(/<section class="group[^"]*" id="([a-z]+)"/g)].map((m) => m[1]);

describe('sections and detail', () => {
  it('prints every section by default, only the chosen ones otherwise', () => {
    expect(sectionIds(html({}))).toEqual(['overview', 'presence', 'life', 'gravity', 'scout', 'market']);
    expect(sectionIds(html({ sections: ['overview', 'market'] }))).toEqual(['overview', 'market']);
  });

  it('summary: the overview and the brief (top movers, open errors), nothing else', () => {
    const page = html({ detail: 'summary' });
    expect(sectionIds(page)).toEqual(['overview', 'brief']);
    expect(page).toContain('Biggest changes across the portfolio');
    expect(page).toContain('Open errors');
  });
});
