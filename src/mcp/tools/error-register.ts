import { z } from 'zod';
import { ToolInputError } from '../../errors/index.js';
import { type ErrorClaim, errorClaims, findRun, findSet, setRuns } from '../reads.js';
import { answer, defineTool, runOut, setInput } from '../tool-parts.js';

const claimOut = z.object({
  error_id: z.string(),
  title: z.string(),
  correct: z.string().describe('The correct statement'),
  note: z.string().nullable(),
  engine: z.string().nullable(),
  claim: z.string().nullable().describe('The false claim as the engine made it'),
});

/** `error_register`: the error register's churn between two runs: false claims new and resolved. */
export const errorRegisterTool = defineTool({
  name: 'error_register',
  title: 'False claims: new and resolved between runs',
  description:
    'The error register (false claims answer engines made about the brand) between two runs of a query set: ' +
    'claims new in the later run, claims resolved since the earlier one, and counts per engine. Defaults: ' +
    'the newest run against the one before it.',
  inputSchema: {
    ...setInput,
    from_run_id: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('The earlier run; default: the run before to_run_id'),
    to_run_id: z.number().int().positive().optional().describe('The later run; default: the newest'),
    engine: z.string().optional().describe('Only claims made by this engine (its label, e.g. Perplexity)'),
    limit: z
      .number()
      .int()
      .min(1)
      .max(200)
      .default(50)
      .describe('Most claims listed in each of new and resolved'),
  },
  outputSchema: {
    query_set_id: z.number(),
    from_run: runOut.nullable().describe('Null when to_run is the oldest stored run: all its claims are new'),
    to_run: runOut,
    new: z.array(claimOut),
    resolved: z.array(claimOut),
    still_open: z.number(),
    per_engine: z.array(
      z.object({ engine: z.string(), new: z.number(), resolved: z.number(), open: z.number() }),
    ),
    truncated: z.boolean(),
  },
  annotations: { readOnlyHint: true },
  handler: async (args, { store }) => {
    const set = await findSet(store, args.query_set_id, args.account);
    const runs = await setRuns(store, set);
    if (runs.length === 0)
      throw new ToolInputError(`query set ${set.query_set_id} has no complete run stored yet`);
    const to = args.to_run_id === undefined ? runs[0]! : await findRun(store, set, runs, args.to_run_id);
    const from =
      args.from_run_id === undefined
        ? runs[runs.indexOf(to) + 1]
        : await findRun(store, set, runs, args.from_run_id);
    const only = (claims: ErrorClaim[]) =>
      args.engine === undefined ? claims : claims.filter((c) => c.engine === args.engine);
    const key = (c: ErrorClaim) => `${c.error_id}\u0000${c.engine ?? ''}`;
    // The oldest run has no run before it: every claim in it is new.
    const earlier = from ? only(await errorClaims(store, from.snapshot_id)) : [];
    const later = only(await errorClaims(store, to.snapshot_id));
    const earlierKeys = new Set(earlier.map(key));
    const laterKeys = new Set(later.map(key));
    const added = later.filter((c) => !earlierKeys.has(key(c)));
    const resolved = earlier.filter((c) => !laterKeys.has(key(c)));
    const engines = new Map<string, { engine: string; new: number; resolved: number; open: number }>();
    const tally = (c: ErrorClaim, what: 'new' | 'resolved' | 'open') => {
      const name = c.engine ?? '(no engine)';
      const entry = engines.get(name) ?? { engine: name, new: 0, resolved: 0, open: 0 };
      entry[what]++;
      engines.set(name, entry);
    };
    for (const c of added) tally(c, 'new');
    for (const c of resolved) tally(c, 'resolved');
    for (const c of later) tally(c, 'open');
    const out = (r: typeof to) => ({ run_id: r.run_id, run: r.run, run_created_at: r.run_created_at });
    return answer({
      query_set_id: set.query_set_id,
      from_run: from ? out(from) : null,
      to_run: out(to),
      new: added.slice(0, args.limit),
      resolved: resolved.slice(0, args.limit),
      still_open: later.length - added.length,
      per_engine: [...engines.values()].sort((a, b) => a.engine.localeCompare(b.engine)),
      truncated: added.length > args.limit || resolved.length > args.limit,
    });
  },
});
