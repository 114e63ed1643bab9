import { availableParallelism } from 'node:os';
import type { Config } from '../config/index.js';
import type { PdfRendererOptions } from './pdf.js';

/** `chromium.concurrency`, or the number of cores, at most 4 (more pages than cores only queue). */
export function renderConcurrency(config: Config): number {
  return config.chromium.concurrency ?? Math.max(1, Math.min(4, availableParallelism()));
}

/** The PDF renderer settings a config asks for: one place for `render`, `deliver` and the daemon. */
export function pdfRendererOptions(config: Config): PdfRendererOptions {
  return {
    chromiumPath: config.chromium.path,
    renderTimeoutMs: config.chromium.render_timeout_seconds * 1000,
    recycleAfter: config.chromium.recycle_after,
    concurrency: renderConcurrency(config),
  };
}
