import type { z } from 'zod';
import { block, type SheetContext } from './context.js';
import type { SheetWriter, TableSpec } from './sheet-writer.js';

/** One block of a sheet, written below the last. */
export type SheetBlock = (w: SheetWriter, ctx: SheetContext) => void;

/**
 * A payload shown as one table, the shape of most blocks of the group sheets. `table` builds the
 * table from the payload (its endpoint key passed in, for the number formats); `block` writes the
 * title above it, or the "Data unavailable" note in its place, also when building it throws.
 */
export function tableBlock<S extends z.ZodType>(
  key: string,
  schema: S,
  table: (data: z.infer<S>, key: string, ctx: SheetContext) => TableSpec,
): SheetBlock {
  return (w, ctx) => block(w, ctx, key, schema, (data) => w.table(table(data, key, ctx)));
}

/** Writes the blocks in order, each below the last. */
export function writeBlocks(w: SheetWriter, ctx: SheetContext, blocks: readonly SheetBlock[]): void {
  for (const write of blocks) write(w, ctx);
}
