import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ToolInputError } from '../errors/index.js';
import { setDetailsOf } from '../insight/run-changes.js';
import { sampleRowsOf } from '../insight/sample-rows.js';
import { type InsightRow, runSamples } from '../insight/sample-sizes.js';
import { judgedOut, judgePairs, NOT_COMPARED, rowKey } from './judged.js';
import {
  findRun,
  findSet,
  metricName,
  metricRowsOf,
  metricTitle,
  runRange,
  setRuns,
  snapshotRows,
  sources,
} from './reads.js';
import { answer, guarded, runOut, setInput, type ToolContext } from './tool-parts.js';

/** The tools that read one metric across runs, what metrics a set has, its cited sources, and renders. */

const DIMENSIONS = [
  'engine',
  'intent',
  'competitor',
  'source',
  'category',
  'stance',
  'engine_intent',
] as const;
const MAX_POINTS = 2000;

const unit = z
  .string()
  .describe('percent (0..100), fraction (0..1), count, ratio, score or unknown: how to read the value');

export function registerSeriesTools(server: McpServer, ctx: ToolContext): void {
  const { store } = ctx;
  server.registerTool(
    'list_metrics',
    {
      title: 'List the metrics of a query set',
      description:
        'The metrics stored for a query set (from its newest run, or run_id), each with a readable title, ' +
        'its unit and the breakdowns it has (engine, intent, competitor…). Use a metric name from here in metric_series.',
      inputSchema: {
        ...setInput,
        run_id: z.number().int().positive().optional().describe('Default: the newest run'),
      },
      outputSchema: {
        query_set_id: z.number(),
        run: runOut,
        metrics: z.array(
          z.object({
            metric: z.string().describe('e.g. presence.weighted.current: endpoint key and field'),
            title: z.string(),
            unit,
            breakdowns: z.array(z.string()).describe('Dimensions it is broken down by; "" means overall'),
          }),
        ),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ query_set_id, account, run_id }) => {
      const set = await findSet(store, query_set_id, account);
      const runs = await setRuns(store, set);
      if (runs.length === 0)
        throw new ToolInputError(`query set ${query_set_id} has no complete run stored yet`);
      const run = run_id === undefined ? runs[0]! : await findRun(store, set, runs, run_id);
      const byName = new Map<
        string,
        { metric: string; title: string; unit: string; breakdowns: Set<string> }
      >();
      for (const row of await snapshotRows(store, run.snapshot_id)) {
        if (row.dimension === 'measurement') continue; // history arrays: metric_series gives the same per run
        const name = metricName(row);
        const entry = byName.get(name) ?? {
          metric: name,
          title: metricTitle(row),
          unit: row.unit,
          breakdowns: new Set(),
        };
        entry.breakdowns.add(row.dimension);
        byName.set(name, entry);
      }
      return answer({
        query_set_id,
        run: { run_id: run.run_id, run: run.run, run_created_at: run.run_created_at },
        metrics: [...byName.values()].map((m) => ({ ...m, breakdowns: [...m.breakdowns].sort() })),
      });
    }),
  );

  server.registerTool(
    'metric_series',
    {
      title: "A metric's series across runs",
      description:
        'One metric of a query set over its runs, oldest first, with its unit: overall, or broken down by ' +
        'engine, intent, competitor… (by), optionally one label only. Runs: from_run_id..to_run_id, or the ' +
        `newest last_runs (default 12, at most 100). Metric names come from list_metrics (e.g. presence.weighted.current, presence.by-engine.weighted with by=engine).`,
      inputSchema: {
        ...setInput,
        metric: z.string().min(3).describe('endpoint key and field, e.g. presence.weighted.current'),
        by: z.enum(DIMENSIONS).optional().describe('Breakdown; omit for the overall value'),
        label: z
          .string()
          .optional()
          .describe('Only this engine, intent, competitor… (its label, e.g. Perplexity)'),
        from_run_id: z.number().int().positive().optional(),
        to_run_id: z.number().int().positive().optional(),
        last_runs: z.number().int().positive().optional().describe('The newest N runs (at most 100)'),
      },
      outputSchema: {
        query_set_id: z.number(),
        metric: z.string(),
        title: z.string(),
        unit,
        by: z.string().nullable(),
        runs: z.number(),
        points: z.array(
          runOut
            .extend({
              label: z.string().nullable().describe('The engine, intent… of the point; null when overall'),
              value: z.number().describe('Exactly as the API published it, in `unit`'),
              ...judgedOut,
            })
            .describe('The change and its significance are against the stored run just before this one'),
        ),
        truncated: z
          .boolean()
          .describe(`True when more than ${MAX_POINTS} points matched: narrow the runs or give a label`),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async (args) => {
      const set = await findSet(store, args.query_set_id, args.account);
      // Endpoint keys are `group.name`; the rest is the field, dotted itself at times (stance.rec).
      const parts = args.metric.split('.');
      const endpoint = parts.slice(0, 2).join('.');
      const field = parts.slice(2).join('.');
      const { runs, before } = await runRange(store, set, args);
      const dimension = args.by ?? '';
      const points: Record<string, unknown>[] = [];
      let seen = false;
      const breakdowns = new Set<string>();
      let unitOf = 'unknown';
      // Each point is judged against the run before it, the first against the run before the range:
      // the metric's rows and the count rows behind its n come in two batched reads, not one per run.
      const read = [...(before ? [before] : []), ...runs].map((r) => r.snapshot_id);
      const bySnapshot = await metricRowsOf(store, read, endpoint, field);
      const counts = await sampleRowsOf(store, read, { endpoint, field, dimension });
      const details = await setDetailsOf(store, set.account, set.query_set_id);
      const runOf = (snapshotId: number) => {
        const metric = bySnapshot.get(snapshotId) ?? [];
        return {
          rows: new Map(metric.map((r) => [rowKey(r), r])),
          samples: runSamples([...(counts.get(snapshotId) ?? []), ...metric], details),
        };
      };
      let previous = before ? runOf(before.snapshot_id) : undefined;
      for (const run of runs) {
        const current = runOf(run.snapshot_id);
        const earlier = previous;
        previous = current;
        const shown: InsightRow[] = [];
        for (const row of current.rows.values()) {
          seen = true;
          breakdowns.add(row.dimension);
          unitOf = row.unit;
          if (row.dimension !== dimension) continue;
          if (args.label !== undefined && row.dimension_label !== args.label) continue;
          shown.push(row);
        }
        // The points of one run are one family: an answer on five engines judges five changes at once.
        const judged = earlier
          ? judgePairs(
              shown.map((row) => ({ row, old: earlier.rows.get(rowKey(row)) })),
              { before: earlier.samples, after: current.samples },
            )
          : shown.map(() => NOT_COMPARED);
        for (const [i, row] of shown.entries()) {
          if (points.length >= MAX_POINTS) break;
          points.push({
            run_id: run.run_id,
            run: run.run,
            run_created_at: run.run_created_at,
            label: dimension === '' ? null : row.dimension_label,
            value: row.value,
            ...judged[i]!,
          });
        }
      }
      if (!seen)
        throw new ToolInputError(
          `metric "${args.metric}" is not stored for query set ${set.query_set_id} in these runs (see list_metrics)`,
        );
      if (points.length === 0 && !breakdowns.has(dimension)) {
        const has = [...breakdowns].map((d) => (d === '' ? 'overall (omit by)' : `by=${d}`)).join(', ');
        throw new ToolInputError(
          `metric "${args.metric}" has no ${dimension === '' ? 'overall value' : `breakdown by ${dimension}`}: it has ${has}`,
        );
      }
      return answer({
        query_set_id: set.query_set_id,
        metric: args.metric,
        title: metricTitle({ endpoint, field }),
        unit: unitOf,
        by: args.by ?? null,
        runs: runs.length,
        points,
        truncated: points.length >= MAX_POINTS,
      });
    }),
  );

  server.registerTool(
    'cited_sources',
    {
      title: 'Sources cited in a run',
      description:
        'The sources (domains, pages) the answer engines cited in a run of a query set, with who controls ' +
        'them and their type, paged. Default: the newest run.',
      inputSchema: {
        ...setInput,
        run_id: z.number().int().positive().optional(),
        limit: z.number().int().min(1).max(200).default(50),
        offset: z.number().int().min(0).default(0),
      },
      outputSchema: {
        query_set_id: z.number(),
        run: runOut,
        total: z.number(),
        sources: z.array(z.object({ source: z.string(), control: z.string(), source_type: z.string() })),
        next_offset: z.number().nullable(),
      },
      annotations: { readOnlyHint: true },
    },
    guarded(async ({ query_set_id, account, run_id, limit, offset }) => {
      const set = await findSet(store, query_set_id, account);
      const runs = await setRuns(store, set);
      if (runs.length === 0)
        throw new ToolInputError(`query set ${query_set_id} has no complete run stored yet`);
      const run = run_id === undefined ? runs[0]! : await findRun(store, set, runs, run_id);
      const all = await sources(store, run.snapshot_id);
      return answer({
        query_set_id,
        run: { run_id: run.run_id, run: run.run, run_created_at: run.run_created_at },
        total: all.length,
        sources: all.slice(offset, offset + limit),
        next_offset: offset + limit < all.length ? offset + limit : null,
      });
    }),
  );

  server.registerTool(
    'render_report',
    {
      title: 'Render a report or workbook',
      description:
        "Renders a query set's report (pdf) or Excel workbook (xlsx) for a run, from the store, with the " +
        'same templates as `reportd render`, and returns the file as a resource link and its path. Default: the newest run.',
      inputSchema: {
        ...setInput,
        run_id: z.number().int().positive().optional(),
        format: z.enum(['pdf', 'xlsx']).default('xlsx'),
      },
      outputSchema: {
        query_set_id: z.number(),
        run: runOut,
        format: z.string(),
        path: z.string(),
        uri: z.string(),
      },
      annotations: { readOnlyHint: false },
    },
    guarded(async ({ query_set_id, account, run_id, format }) => {
      if (!ctx.render) throw new ToolInputError('this server does not render (no output folder configured)');
      const set = await findSet(store, query_set_id, account);
      const runs = await setRuns(store, set);
      if (runs.length === 0)
        throw new ToolInputError(`query set ${query_set_id} has no complete run stored yet`);
      const run = run_id === undefined ? runs[0]! : await findRun(store, set, runs, run_id);
      const path = await ctx.render({
        querySetId: query_set_id,
        account: set.account,
        runId: run.run_id,
        format,
      });
      const uri = new URL(`file://${path}`).href;
      const structured = {
        query_set_id,
        run: { run_id: run.run_id, run: run.run, run_created_at: run.run_created_at },
        format,
        path,
        uri,
      };
      const result = answer(structured);
      return {
        ...result,
        content: [
          ...result.content,
          {
            type: 'resource_link' as const,
            uri,
            name: path.split('/').at(-1)!,
            mimeType:
              format === 'pdf'
                ? 'application/pdf'
                : 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          },
        ],
      } as never;
    }),
  );
}
