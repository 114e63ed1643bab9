import { z } from 'zod';

/**
 * The view of the email templates (templates/email/report.hbs and report.txt.hbs), as
 * delivery/email.ts builds it: what `reportd templates check` reads their variables against.
 */

const kpi = z.strictObject({
  label: z.string().describe('The KPI\'s name ("Weighted presence").'),
  value: z.string().describe('Its value, formatted in the locale.'),
  delta: z.string().describe('The change since the previous run, formatted.'),
  interval: z
    .string()
    .optional()
    .describe('A judged change\'s interval as it is ("−12.5 to −4.6 pts"); absent when not judged.'),
  verdict: z
    .enum(['likely', 'unclear'])
    .optional()
    .describe('`likely` (a likely change) or `unclear` (no clear change); absent when not judged.'),
  arrow: z.string().describe('▲ or ▼ on a likely change; empty for every other change.'),
  meaning: z.string().optional().describe('"better" or "worse" on a likely change; empty otherwise.'),
  said: z
    .string()
    .optional()
    .describe('The change in words for assistive technology ("down 8.3 points, likely change, worse").'),
  good: z.boolean().describe('A likely change that is good news (coloured).'),
  bad: z.boolean().describe('A likely change that is bad news (coloured).'),
});

export const emailViewSchema = z.strictObject({
  brand: z.string().describe("The brand's name (a digest: the first set's)."),
  query_set: z.string().describe("The query set's name."),
  run: z.string().describe('The run\'s label ("Week 37 · 2026").'),
  report: z.string().describe('reports[].name.'),
  sets: z.string().describe('How many query sets the message covers.'),
  period: z.string().describe("The runs' labels, collapsed when equal."),
  subject: z.string().describe('The subject line.'),
  querySet: z.string().describe("The query set's name."),
  querySetId: z.string().describe("The query set's id, as text."),
  runId: z.string().describe("The run's id, as text."),
  kpis: z.array(kpi).describe('The headline KPIs (one set).'),
  story: z.array(z.string()).describe('The story of the run: 3–5 sentences (one set; empty in a digest).'),
  summary: z.string().optional().describe("The overview's summary sentence."),
  noiseNote: z
    .string()
    .optional()
    .describe(
      'The footnote on the judged changes: what an interval is, and how many changes the report judged together (one set; in a digest each set has its own).',
    ),
  digest: z
    .strictObject({
      sets: z.array(
        z.strictObject({
          brand: z.string(),
          querySet: z.string(),
          run: z.string(),
          querySetId: z.number(),
          runId: z.number(),
          noNewRun: z.string().optional(),
          kpis: z.array(kpi),
          story: z
            .array(z.string())
            .optional()
            .describe("The story of this set's run; absent when the run was in an earlier message."),
          noiseNote: z.string().optional().describe("The footnote on this set's judged changes."),
        }),
      ),
      period: z.string(),
    })
    .optional()
    .describe("Set in a digest: every set's headline and the period."),
  setCount: z.number().describe('How many sets the message covers.'),
  compact: z
    .boolean()
    .describe('A digest of more than 12 sets: one short block per set (the stories are in the PDF).'),
  layout: z
    .strictObject({
      open: z.string().describe("The email's frame up to the card's first row (use {{{layout.open}}})."),
      close: z.string().describe('What `open` opened (use {{{layout.close}}}).'),
      width: z.number().describe("The card's widest width (CSS px)."),
      colours: z.record(z.string(), z.string()).describe('The light palette by role (page, card, text…).'),
    })
    .describe('The hybrid frame every reportd email is laid out in (fluid card, Outlook width, dark mode).'),
  attached: z.array(z.string()).describe('File names attached.'),
  attachedList: z.string().describe('The file names joined the locale\'s way ("a, b and c").'),
  notes: z.array(z.string()).describe('Files left out for size, one line each.'),
  links: z
    .strictObject({
      files: z
        .array(
          z.strictObject({
            name: z.string().describe('The file name.'),
            url: z.string().describe('Its pre-signed link (S3); escape it in HTML as Handlebars does.'),
            size: z.string().describe('Its size, formatted ("25.0 MB").'),
          }),
        )
        .describe('The files, one link each.'),
      until: z.string().describe("When the links stop working, in the locale and the report's zone."),
    })
    .optional()
    .describe(
      'With `email.attach: links` (or `auto` over the cap): the files as links instead of attachments.',
    ),
  lang: z.string().describe('The locale (BCP 47).'),
  theme: z
    .strictObject({
      logoSrc: z.string().optional().describe('cid: URL of the logo part, when the theme has a logo.'),
      logoWidth: z
        .number()
        .optional()
        .describe("The logo's width in the email (CSS px; the PNG is twice it)."),
      logoHeight: z.number().optional().describe("The logo's height in the email (CSS px)."),
      logo: z.strictObject({ type: z.string(), dataUrl: z.string() }).optional(),
      primary: z.string(),
      accent: z.string(),
      positive: z.string(),
      negative: z.string(),
      fontFamily: z.string(),
      coverTitle: z.string().optional(),
      footer: z.string().optional(),
      logoAlt: z.string().optional().describe("The logo's alternative text (reports[].theme.logo_alt)."),
      css: z.string(),
    })
    .describe("The report's look (reports[].theme)."),
});
