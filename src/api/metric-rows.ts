import type { Dimension } from '../config/dimensions.js';
import { type MetricUnit, mixScale, ruleNameForPath, unitOfRule } from './field-units.js';
import { type MappingPart, METRIC_MAPPING } from './metric-mapping.js';

/**
 * One payload → its tidy rows, by the endpoint's mapping (metric-mapping.ts). Pure: the store derives
 * `metric_values` with it when a snapshot completes, and the workbook's Data sheet builds the same rows
 * from stored snapshots, so the two can never disagree.
 */

export interface PayloadRow {
  endpoint: string;
  field: string;
  dimension: Dimension;
  dimension_id: string | null;
  dimension_label: string | null;
  /** The number exactly as the API sent it. */
  value: number;
  unit: MetricUnit;
}

export interface RowContext {
  /**
   * Run ids by run label, for history arrays labelled by text only (`historyLabels`): the point's
   * `dimension_id` is then the run's id when the store knows a run of that label.
   */
  readonly runIdByLabel?: ReadonlyMap<string, number>;
}

type Json = unknown;

interface Draft extends Omit<PayloadRow, 'unit'> {
  /** Rows of one whole (for `mix` fields): their scale is decided together. */
  group: string;
}

const isRecord = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isNumber = (value: Json): value is number => typeof value === 'number' && Number.isFinite(value);
const asArray = (value: Json): Json[] => (Array.isArray(value) ? value : []);

function at(data: Json, path: string | undefined): Json {
  if (!path) return data;
  let node = data;
  for (const key of path.split('.')) {
    if (!isRecord(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** `{id, label}` lists (engines, intents) as id → label; text ids too (a source's name). */
function labelsOf(list: Json): Map<string, string> {
  const map = new Map<string, string>();
  for (const item of asArray(list)) {
    if (isRecord(item) && item.id !== undefined) map.set(String(item.id), String(item.label ?? item.id));
  }
  return map;
}

/** Every finite number inside `value`, with its dotted path (arrays by index). */
function leaves(value: Json, path: string[] = []): [string, number][] {
  if (isNumber(value)) return [[path.join('.'), value]];
  if (Array.isArray(value)) return value.flatMap((item, i) => leaves(item, [...path, String(i)]));
  if (isRecord(value)) return Object.entries(value).flatMap(([key, item]) => leaves(item, [...path, key]));
  return [];
}

function measurementOf(label: Json, context: RowContext): { id: string | null; label: string | null } {
  if (isRecord(label))
    return { id: label.id === undefined ? null : String(label.id), label: String(label.label ?? '') };
  if (typeof label !== 'string') return { id: null, label: null };
  const runId = context.runIdByLabel?.get(label);
  return { id: runId === undefined ? null : String(runId), label };
}

/** Adds a row when `value` is a finite number (anything else in a payload gives no row). */
type AddRow = (
  field: string,
  value: Json,
  group: string,
  dimension?: Dimension,
  id?: string | null,
  label?: string | null,
) => void;

/** What a shape's reader is handed: the payload, the part's group (`g`) and where its rows go. */
interface Reading {
  data: Json;
  g: string;
  context: RowContext;
  add: AddRow;
}

type PartOf<S extends MappingPart['shape']> = Extract<MappingPart, { shape: S }>;

/** How each shape of mapping part (metric-mapping.ts) reads its rows out of a payload. */
const READERS: { [S in MappingPart['shape']]: (part: PartOf<S>, reading: Reading) => void } = {
  fields(part, { data, g, add }) {
    const base = at(data, part.at);
    for (const name of part.fields) {
      add(part.as ? `${part.as}.${name}` : name, isRecord(base) ? base[name] : undefined, g);
    }
  },
  history(part, { data, g, context, add }) {
    const labels = asArray(at(data, part.labels));
    asArray(at(data, part.values)).forEach((value, i) => {
      const point = measurementOf(labels[i], context);
      add(part.field, value, `${g}@${i}`, 'measurement', point.id, point.label);
    });
  },
  series(part, { data, g, context, add }) {
    const labels = asArray(at(data, part.labels));
    const series = at(data, part.at);
    if (!isRecord(series)) return;
    for (const [key, values] of Object.entries(series)) {
      asArray(values).forEach((value, i) => {
        const point = measurementOf(labels[i], context);
        // One whole per point in time: the parts of a mix at one measurement share a scale.
        add(key, value, `${g}@${i}`, 'measurement', point.id, point.label);
      });
    }
  },
  parts(part, { data, g, add }) {
    const base = at(data, part.at);
    if (!isRecord(base)) return;
    for (const key of part.keys) add(part.field, base[key], g, part.dimension, key, key);
  },
  list(part, { data, g, add }) {
    asArray(at(data, part.at)).forEach((item, i) => {
      if (!isRecord(item)) return;
      const id = item[part.id] === undefined ? null : String(item[part.id]);
      const label = item[part.label] === undefined ? id : String(item[part.label]);
      for (const name of part.fields) add(name, item[name], `${g}#${i}`, part.dimension, id, label);
    });
  },
  map(part, { data, g, add }) {
    const map = at(data, part.at);
    if (!isRecord(map)) return;
    const labels = labelsOf(at(data, part.labels));
    for (const [id, value] of Object.entries(map)) {
      for (const [field, number] of leaves(value)) {
        const parent = field.includes('.') ? field.slice(0, field.lastIndexOf('.')) : '';
        add(field, number, `${g}#${id}:${parent}`, part.dimension, id, labels.get(id) ?? `#${id}`);
      }
    }
  },
  matrix(part, { data, g, add }) {
    const matrix = at(data, part.at);
    if (!isRecord(matrix)) return;
    const outer = labelsOf(at(data, part.outerLabels));
    const inner = labelsOf(at(data, part.innerLabels));
    for (const [o, row] of Object.entries(matrix)) {
      if (!isRecord(row)) continue;
      for (const [i, value] of Object.entries(row)) {
        const label = `${outer.get(o) ?? `#${o}`} | ${inner.get(i) ?? `#${i}`}`;
        add(part.field, value, g, 'engine_intent', `${o}|${i}`, label);
      }
    }
  },
  grid(part, { data, g, add }) {
    const series = at(data, part.at);
    if (!isRecord(series)) return;
    const categories = new Map<string, string>();
    for (const item of asArray(at(data, part.categories))) {
      if (isRecord(item)) categories.set(String(item.key), String(item.label ?? item.key));
    }
    const columns = asArray(at(data, part.columns)).map(String);
    for (const [key, values] of Object.entries(series)) {
      asArray(values).forEach((value, j) => {
        const column = columns[j] ?? `#${j + 1}`;
        const label = `${categories.get(key) ?? key} | ${column}`;
        add(part.field, value, g, 'category', `${key}|${column}`, label);
      });
    }
  },
};

function draftsOf(
  endpoint: string,
  part: MappingPart,
  index: number,
  data: Json,
  context: RowContext,
): Draft[] {
  const out: Draft[] = [];
  const add: AddRow = (field, value, group, dimension = '', id = null, label = null) => {
    if (isNumber(value))
      out.push({ endpoint, field, dimension, dimension_id: id, dimension_label: label, value, group });
  };
  // The table's type pairs each shape with its reader; indexing it by a union loses that pairing.
  const read = READERS[part.shape] as (part: MappingPart, reading: Reading) => void;
  read(part, { data, g: `${index}`, context, add });
  return out;
}

/** The rows of one valid payload; an endpoint without a mapping yields none. */
export function payloadRows(endpoint: string, data: unknown, context: RowContext = {}): PayloadRow[] {
  const parts = METRIC_MAPPING[endpoint] ?? [];
  const drafts = parts.flatMap((part, index) => draftsOf(endpoint, part, index, data, context));
  // `mix` fields take the scale of their whole, decided over the parts that share a group.
  const rules = drafts.map((draft) => ruleNameForPath(endpoint, draft.field));
  const wholes = new Map<string, number[]>();
  drafts.forEach((draft, i) => {
    if (rules[i] !== 'mix') return;
    const parts = wholes.get(draft.group) ?? [];
    parts.push(draft.value);
    wholes.set(draft.group, parts);
  });
  return drafts.map(({ group, ...row }, i) => ({
    ...row,
    unit: unitOfRule(rules[i], rules[i] === 'mix' ? mixScale(wholes.get(group) ?? []) : undefined),
  }));
}
