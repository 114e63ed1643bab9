import { z } from 'zod';
import { listSets } from '../reads.js';
import { answer, defineTool } from '../tool-parts.js';

/** `list_sets`: the brands and query sets in the store, where an assistant starts. */
export const listSetsTool = defineTool({
  name: 'list_sets',
  title: 'List brands and query sets',
  description:
    'Lists the brands and their query sets stored offline by reportd (every published run it synced), ' +
    'with how many runs each has. Start here to find a query_set_id. Reads the local store only.',
  inputSchema: { account: z.string().optional().describe('Only this account') },
  outputSchema: {
    sets: z.array(
      z.object({
        account: z.string(),
        brand_id: z.number().nullable(),
        brand: z.string().nullable(),
        query_set_id: z.number(),
        query_set: z.string(),
        state: z.string(),
        runs_stored: z.number().describe('Complete runs stored for this set'),
      }),
    ),
    note: z.string().optional(),
  },
  annotations: { readOnlyHint: true },
  handler: async ({ account }, { store }) => {
    const sets = await listSets(store, account);
    return answer({
      sets,
      ...(sets.length === 0 ? { note: 'nothing is stored yet: run `reportd sync` first' } : {}),
    });
  },
});
