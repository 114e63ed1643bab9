import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkTemplates, formatProblem } from '../../src/report/check/templates-check.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel } from '../../src/report/model/index.js';
import { PACKAGED_TEMPLATES_DIR, reportTemplatesFor } from '../../src/report/templates.js';
import { fixtureSnapshot } from './fixtures.js';

/**
 * An author's own wording in `<templates.dir>/locale/<language>.json`: a built-in message reworded per
 * language, a message of the author's own for a custom partial, both printed in the document; a key
 * one configured language lacks and a file that does not parse are named by `templates check`.
 */

let dir: string;
const cover = readFileSync(join(PACKAGED_TEMPLATES_DIR, 'report', 'partials', 'cover.hbs'), 'utf8');

const html = (locale: string) =>
  renderReportHtml(
    buildReportModel(fixtureSnapshot(), [], {
      generatedAt: new Date('2026-10-15T06:00:00Z'),
      version: '0',
      locale,
    }),
    reportTemplatesFor(dir),
  ).html;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'reportd-catalog-files-'));
  mkdirSync(join(dir, 'report', 'partials'), { recursive: true });
  mkdirSync(join(dir, 'locale'));
  writeFileSync(
    join(dir, 'report', 'partials', 'cover.hbs'),
    cover.replace('{{t "cover.run"}}', '{{t "cover.run"}} · {{t "agency.prepared" client="Acme"}}'),
  );
  writeFileSync(
    join(dir, 'locale', 'en.json'),
    JSON.stringify({ 'report.kicker': 'Answer engine brief', 'agency.prepared': 'prepared for {client}' }),
  );
  writeFileSync(
    join(dir, 'locale', 'de.json'),
    JSON.stringify({ 'agency.prepared': 'erstellt für {client}' }),
  );
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a templates folder's own catalog files", () => {
  it('reword a built-in message and add one of their own, per language', () => {
    const english = html('en-US');
    // The cover's kicker is the template's {{t}}: reworded.
    expect(english).toMatch(/<section class="cover">[\s\S]*Answer engine brief/);
    expect(english).toContain('prepared for Acme');
    const german = html('de-DE');
    // Not reworded in German: the built-in German message stays.
    expect(german).toContain('KI-Sichtbarkeitsbericht');
    expect(german).toContain('erstellt für Acme');
  });

  it('are checked: a message one configured language lacks, and a file that is no catalog', () => {
    expect(checkTemplates({ templatesDir: dir, locales: ['en-US', 'de-DE'] })).toEqual([]);
    const french = checkTemplates({ templatesDir: dir, locales: ['en-US', 'fr-FR'] }).map((p) =>
      formatProblem(p, dir),
    );
    expect(french).toEqual([
      expect.stringMatching(
        /^report\/partials\/cover\.hbs:\d+:\d+: message "agency\.prepared" is missing from the fr catalog$/,
      ),
    ]);
    writeFileSync(join(dir, 'locale', 'fr.json'), '{ "agency.prepared": "préparé pour {client" }');
    try {
      const broken = checkTemplates({ templatesDir: dir, locales: ['fr-FR'] }).map((p) =>
        formatProblem(p, dir),
      );
      // Not half used: none of the file's messages counts, so the key is missing as well.
      expect(broken).toEqual([
        expect.stringMatching(/^locale\/fr\.json:1:1: message "agency\.prepared" does not parse/),
        expect.stringMatching(
          /^report\/partials\/cover\.hbs:\d+:\d+: message "agency\.prepared" is missing from the fr catalog$/,
        ),
      ]);
      // The render names the file too, instead of printing half a catalog.
      expect(() => html('fr-FR')).toThrow(/locale\/fr\.json: message "agency\.prepared" does not parse/);
    } finally {
      rmSync(join(dir, 'locale', 'fr.json'));
    }
  });
});
