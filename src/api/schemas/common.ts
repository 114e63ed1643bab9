import { z } from 'zod';

/**
 * Shapes the spec reuses across groups. Every object is loose: unknown extra fields are tolerated and
 * kept (the stored payload is the server's JSON as sent), while a missing or mistyped documented field
 * is a validation error with its path.
 */
export const obj = <T extends z.ZodRawShape>(shape: T) => z.looseObject(shape);

export const int = z.number().int();
export const num = z.number();
export const isoTimestamp = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/, 'ISO 8601 with offset');
export const hexColor = z.string().regex(/^#[0-9A-Fa-f]{6}$/, 'hex color #RRGGBB');
export const url = z.string().min(1);

/** Maps keyed by engine id or intent id use the id rendered as a string key. */
export const idKey = z.string().regex(/^-?\d+$/, 'id rendered as a string');
export const idMap = <T extends z.ZodType>(value: T) => z.record(idKey, value);

export const seriesCard = obj({
  current: num,
  delta: num,
  history: z.array(num),
  historyLabels: z.array(z.string()),
});

export const metricCard = obj({ current: num, delta: num, history: z.array(num) });

export const shareEntry = obj({
  name: z.string(),
  share: num,
  isBrand: z.boolean(),
  isTargeted: z.boolean(),
});

export const stanceSet = obj({
  recommended: num,
  advisedNotFavored: num,
  neutral: num,
  cautious: num,
  negative: num,
});

export const compactStance = obj({ rec: num, adv: num, neu: num, cau: num, neg: num });

/** A published run on a time axis, object form (gravity trend, market data). */
export const measurement = obj({ id: int, label: z.string() });

/** Engine in metric form: `id`, `label`, `color`, plus `image` where the endpoint lists it. */
export const engineRef = obj({ id: int, label: z.string(), color: hexColor });
export const engineWithImage = obj({ id: int, label: z.string(), color: hexColor, image: url });

export const intentRef = obj({ id: int, label: z.string() });
export const intentStaged = obj({ id: int, label: z.string(), stage: z.string() });
export const intentFull = obj({ id: int, label: z.string(), stage: z.string(), icv: int });

export type SeriesCard = z.infer<typeof seriesCard>;
export type MetricCard = z.infer<typeof metricCard>;
export type ShareEntry = z.infer<typeof shareEntry>;
export type StanceSet = z.infer<typeof stanceSet>;
export type CompactStance = z.infer<typeof compactStance>;
export type Measurement = z.infer<typeof measurement>;
export type EngineRef = z.infer<typeof engineRef>;
export type EngineWithImage = z.infer<typeof engineWithImage>;
export type IntentFull = z.infer<typeof intentFull>;
