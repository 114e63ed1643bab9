import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricEndpoints } from '../../src/api/endpoints.js';
import { REPORT_LOCALES } from '../../src/config/locale-tags.js';
import { CATALOGS, reportLocale } from '../../src/locale/locale.js';
import { renderReportHtml } from '../../src/report/html.js';
import { buildReportModel } from '../../src/report/model/index.js';
import type { ReportSnapshot } from '../../src/report/model/snapshot.js';
import { PdfRenderer } from '../../src/report/pdf.js';
import { renderSnapshot } from '../../src/report/render.js';
import { PACKAGED_TEMPLATES_DIR } from '../../src/report/templates.js';
import { type Sandbox, startSandbox } from '../../src/sandbox/server.js';
import { pdfText } from './helpers.js';
import { sandboxSnapshot } from './sandbox-snapshot.js';

const en = CATALOGS.en as Readonly<Record<string, string>>;

/**
 * Messages a translation may leave as in English, and why: vendor product names and metric symbols
 * (the issue lets them stay), and words that are spelt the same in that language. Anything else equal
 * to English counts as untranslated.
 */
const SAME_AS_ENGLISH: Readonly<Record<string, readonly string[]>> = {
  de: [
    'xlsx.n', // symbols: the sample size's n, the p-value's p and the adjusted value's q
    'xlsx.p',
    'xlsx.q',
    'group.life',
    'group.gravity',
    'group.scout',
    'endpoint.life.kpi',
    'endpoint.gravity.gravity-plus',
    'endpoint.gravity.gravity-minus',
    'market.dStar',
    'col.neg',
    'stance.neutral',
    'digest.portfolio', // the same word in German
    'alt.logo',
    'alt.values', // punctuation and placeholders only
  ],
  fr: [
    'xlsx.n', // symbols: the sample size's n, the p-value's p and the adjusted value's q
    'xlsx.p',
    'xlsx.q',
    'group.life',
    'group.gravity',
    'group.scout',
    'endpoint.life.kpi',
    'endpoint.gravity.gravity-plus',
    'endpoint.gravity.gravity-minus',
    'market.dStar',
    'delta.points',
    'xlsx.verdict', // the same word in French
    'report.page',
    'col.rec',
    'col.source',
    'col.type',
    'col.citations',
    'col.volume',
    'alt.logo',
  ],
  es: [
    'xlsx.n', // symbols: the sample size's n, the p-value's p and the adjusted value's q
    'xlsx.p',
    'xlsx.q',
    'group.life',
    'group.gravity',
    'group.scout',
    'endpoint.life.kpi',
    'endpoint.gravity.gravity-plus',
    'endpoint.gravity.gravity-minus',
    'market.dStar',
    'col.rec',
    'col.control',
    'common.no',
    'alt.values', // punctuation and placeholders only
  ],
};

/** Every `{{t "key"}}` of the packaged report and email templates. */
function templateKeys(): Set<string> {
  const keys = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.hbs')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/\{\{t\s+"([^"]+)"/g))
          keys.add(match[1] ?? '');
      }
    }
  };
  walk(PACKAGED_TEMPLATES_DIR);
  return keys;
}

/** Placeholder names a message uses (plural and select arguments included). */
function argumentsOf(message: string): string[] {
  const names = new Set<string>();
  const visit = (elements: ReturnType<IntlMessageFormat['getAst']>) => {
    for (const element of elements) {
      if ('value' in element && typeof element.value === 'string' && element.type !== 0)
        names.add(element.value);
      if ('options' in element) for (const option of Object.values(element.options)) visit(option.value);
    }
  };
  visit(new IntlMessageFormat(message, 'en').getAst());
  return [...names].sort();
}

/** The literal words of an English message, placeholders and plural branches taken out. */
function literalParts(message: string): string[] {
  let depth = 0;
  let current = '';
  const parts: string[] = [];
  for (const char of message) {
    if (char === '{') {
      if (depth === 0) parts.push(current);
      current = depth === 0 ? '' : current;
      depth++;
    } else if (char === '}') depth--;
    else if (depth === 0) current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => /\p{L}.*\p{L}.*\p{L}/u.test(part));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Case and spacing out: pdftotext spreads letter-spaced capitals ("R U N") and keeps CSS uppercase. */
const squash = (text: string) => text.toLowerCase().replace(/\s+/g, '');

describe('message catalogs', () => {
  it('every template key is in the English catalog, and every catalog has exactly its keys', () => {
    const used = templateKeys();
    expect(used.size).toBeGreaterThan(60);
    expect([...used].filter((key) => !Object.hasOwn(en, key))).toEqual([]);
    for (const [language, catalog] of Object.entries(CATALOGS)) {
      expect(Object.keys(catalog).sort(), language).toEqual(Object.keys(en).sort());
    }
  });

  it('English endpoint titles are the titles of the endpoint catalog', () => {
    for (const endpoint of metricEndpoints) expect(en[`endpoint.${endpoint.key}`]).toBe(endpoint.title);
  });

  it('every translation parses and uses the same placeholders as English', () => {
    for (const [language, catalog] of Object.entries(CATALOGS)) {
      for (const [key, message] of Object.entries(catalog)) {
        expect(argumentsOf(message), `${language} ${key}`).toEqual(argumentsOf(en[key] ?? ''));
      }
    }
  });

  it('a translation equals English only where the list above says why', () => {
    for (const [language, catalog] of Object.entries(CATALOGS)) {
      if (language === 'en') continue;
      const same = Object.keys(catalog).filter((key) => catalog[key as keyof typeof catalog] === en[key]);
      expect(same.sort(), language).toEqual([...(SAME_AS_ENGLISH[language] ?? [])].sort());
    }
  });
});

describe('reports in every locale (sandbox over HTTP, real Chromium, pdftotext)', () => {
  let sandbox: Sandbox;
  let renderer: PdfRenderer;
  let dir: string;
  let snapshot: ReportSnapshot;
  const texts = new Map<string, { pdf: string; html: string; file: string }>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'reportd-locale-'));
    sandbox = await startSandbox();
    renderer = new PdfRenderer();
    const fetched = await sandboxSnapshot(sandbox, 101, { id: 1, name: 'Northwind Coffee' });
    // A run published late on 14 October UTC is already the 15th in Berlin: the zone must show.
    snapshot = { ...fetched, run: { ...fetched.run, created_at: '2026-10-14T23:30:00Z' } };
    for (const locale of REPORT_LOCALES) {
      const [pdf, html] = await renderSnapshot(snapshot, [], {
        formats: ['pdf', 'html'],
        outDir: join(dir, locale),
        renderer,
        locale,
        timeZone: 'Europe/Berlin',
        generatedAt: new Date('2026-10-15T06:00:00Z'),
      });
      texts.set(locale, {
        pdf: pdfText(pdf ?? ''),
        html: readFileSync(html ?? '', 'utf8'),
        file: pdf ?? '',
      });
    }
  }, 120_000);

  afterAll(async () => {
    await renderer?.close();
    await sandbox?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves no string of the English catalog in a German, French or Spanish PDF', () => {
    // Words that also occur in the API's own (English) data cannot tell a leftover from data.
    const apiText = squash(JSON.stringify(snapshot));
    const english = squash(texts.get('en-US')?.pdf ?? '');
    for (const locale of ['de-DE', 'fr-FR', 'es-ES'] as const) {
      const language = locale.slice(0, 2);
      const catalog = CATALOGS[language] as Readonly<Record<string, string>>;
      const pdf = texts.get(locale)?.pdf ?? '';
      const text = squash(pdf);
      const lower = pdf.toLowerCase();
      const leftovers: string[] = [];
      for (const [key, message] of Object.entries(en)) {
        if (catalog[key] === message) continue;
        for (const part of literalParts(message)) {
          const words = squash(part);
          // Only words the English report really prints (so the check is known to bite), and not
          // words the translation keeps on purpose ("· reportd").
          if (apiText.includes(words) || !english.includes(words)) continue;
          if (squash(catalog[key] ?? '').includes(words)) continue;
          // One word is matched as a word ("Volume" is not in "Volumen"); longer phrases spacing-free.
          const found = /\s/.test(part.trim())
            ? text.includes(words)
            : new RegExp(`(^|[^\\p{L}])${escapeRegExp(part.trim().toLowerCase())}($|[^\\p{L}])`, 'u').test(
                lower,
              );
          if (found) leftovers.push(`${key}: "${part}"`);
        }
      }
      expect(leftovers, locale).toEqual([]);
    }
  });

  it('the English PDF prints the catalog strings the check looks for', () => {
    const text = squash(texts.get('en-US')?.pdf ?? '');
    for (const key of [
      'cover.engines',
      'lede.life',
      'kpi.vsPrevious',
      'gravity.errorsNote',
      'col.stanceMix',
    ]) {
      expect(text).toContain(squash(en[key] ?? ''));
    }
  });

  it('sets <html lang> to the locale', () => {
    for (const locale of REPORT_LOCALES) expect(texts.get(locale)?.html).toContain(`<html lang="${locale}">`);
  });

  it('de-DE: German labels, 37,3 %-style numbers and German month names', () => {
    const { pdf, html } = texts.get('de-DE') ?? { pdf: '', html: '' };
    const weighted = (snapshot.payloads['presence.weighted']?.data as { current: number } | undefined)
      ?.current;
    const expected = new Intl.NumberFormat('de-DE', {
      style: 'percent',
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
    }).format((weighted ?? Number.NaN) / 100);
    expect(expected).toMatch(/^\d+,\d\u00a0%$/);
    expect(html).toContain(expected);
    expect(pdf).toContain(expected.replace(/\s/g, ' '));
    expect(pdf).toContain('15. Oktober 2026');
    expect(pdf).toContain('Gewichtete Präsenz'.toUpperCase());
    expect(pdf).toContain('Seite 1 von');
    expect(pdf).toMatch(/[+−]\d+,\d Pp\./);
  });

  it('fr-FR writes spaces in numbers exactly as Intl does (narrow no-break space in 1 198)', () => {
    const { pdf, html } = texts.get('fr-FR') ?? { pdf: '', html: '' };
    const percent = new Intl.NumberFormat('fr-FR', {
      style: 'percent',
      minimumFractionDigits: 1,
      maximumFractionDigits: 1,
    }).format(0.373);
    const thousands = new Intl.NumberFormat('fr-FR').format(1198);
    expect(thousands).toBe('1\u202f198');
    const total =
      (snapshot.payloads['presence.position-distribution']?.data as { totalAll: number } | undefined)
        ?.totalAll ?? 0;
    expect(html).toContain(new Intl.NumberFormat('fr-FR').format(total));
    // The space Intl puts before "%" (whichever it is in this ICU) is the one in the document.
    const space = percent.replace(/[\d,]/g, '').replace('%', '');
    expect(html).toMatch(new RegExp(`\\d,\\d${space}%`));
    expect(html).not.toMatch(/\d,\d%/);
    expect(pdf).toContain('15 octobre 2026');
  });

  it('en-GB and en-US differ only in how dates are written', () => {
    expect(texts.get('en-GB')?.pdf).toContain('15 October 2026');
    expect(texts.get('en-US')?.pdf).toContain('October 15, 2026');
    expect(texts.get('es-ES')?.pdf).toContain('15 de octubre de 2026');
  });

  it('Letter landscape gives 792 × 612 pt pages, Legal portrait 612 × 1008', async () => {
    const sizes: Record<string, string> = {};
    for (const [size, orientation] of [
      ['Letter', 'landscape'],
      ['Legal', 'portrait'],
    ] as const) {
      const [pdf] = await renderSnapshot(snapshot, [], {
        formats: ['pdf'],
        outDir: join(dir, `${size}-${orientation}`),
        renderer,
        locale: 'de-DE',
        page: { size, orientation },
      });
      const info = execFileSync('pdfinfo', [pdf ?? ''], { encoding: 'utf8' });
      sizes[`${size} ${orientation}`] = /Page size:\s+([\d.]+ x [\d.]+) pts/.exec(info)?.[1] ?? info;
      // Every page, not just the first: pdfinfo -l lists each one.
      const pages = Number(/Pages:\s+(\d+)/.exec(info)?.[1]);
      const each = execFileSync('pdfinfo', ['-f', '1', '-l', String(pages), pdf ?? ''], { encoding: 'utf8' });
      expect(new Set([...each.matchAll(/size:\s+([\d.]+ x [\d.]+) pts/g)].map((m) => m[1])).size).toBe(1);
    }
    expect(sizes).toEqual({ 'Letter landscape': '792 x 612', 'Legal portrait': '612 x 1008' });
  }, 60_000);

  it('says "data unavailable" in the language too', () => {
    const { 'presence.by-engine': _dropped, ...payloads } = snapshot.payloads;
    const model = buildReportModel({ ...snapshot, payloads }, [], {
      generatedAt: new Date('2026-10-15T06:00:00Z'),
      version: '0.1.0',
      locale: 'de-DE',
    });
    expect(renderReportHtml(model).html).toContain(
      'Daten nicht verfügbar — Präsenz nach Maschine: nicht in diesem Snapshot',
    );
  });

  it('refuses an unknown locale or zone with a message naming it', () => {
    expect(() => reportLocale('pt-BR')).toThrow(/locale "pt-BR" is not supported; use one of en-US/);
    expect(() => reportLocale('de-DE', 'Mars/Olympus')).toThrow(/time zone "Mars\/Olympus"/);
  });
});
