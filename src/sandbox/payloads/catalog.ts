import { engineById, engineImage } from '../dataset/catalog.js';
import type { SetRecord } from '../dataset/records.js';
import type { SandboxDataset } from '../dataset.js';

/** Payloads of the four catalog endpoints. */
export const catalogPayloads = {
  brands: (ds: SandboxDataset) => ds.brands(),
  querySets: (ds: SandboxDataset, brandId: number) => ds.setsOfBrand(brandId),
  details: (ds: SandboxDataset, set: SetRecord) => {
    const { date, ...rest } = ds.details(set);
    return {
      ...rest,
      engines: set.def.engineIds.map((id) => {
        const e = engineById(id);
        return { id: e.id, name: e.name, image: engineImage(e), ai_model_name: e.model };
      }),
      date,
    };
  },
  // Newest first, the way the dashboard lists them; clients must not rely on the order.
  runs: (set: SetRecord) =>
    [...set.runs]
      .reverse()
      .map((r) => ({ id: r.id, display_name: r.display_name, created_at: r.created_at })),
};
