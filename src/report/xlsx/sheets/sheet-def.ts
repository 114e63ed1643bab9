import type { MessageKey } from '../../../locale/catalog-en.js';
import type { SheetContext } from '../context.js';
import type { SheetWriter } from '../sheet-writer.js';

/** One worksheet: its exact name, the payloads it shows, and how it lays them out. */
export interface SheetDef {
  /** Stable English id: table names, `WORKBOOK_SHEETS`, the English title. */
  readonly name: string;
  /** The worksheet's title in the workbook's locale. */
  readonly titleKey: MessageKey;
  /** Metric endpoint keys this sheet reads (the completeness test checks all 34 are covered). */
  readonly endpoints: readonly string[];
  write(w: SheetWriter, ctx: SheetContext): void;
}
