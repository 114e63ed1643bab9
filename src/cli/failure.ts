import { ConfigError, ReportdError, TemplateError } from '../errors/index.js';
import { systemErrorLine } from '../errors/system-error.js';
import { printable } from '../printable.js';
import { scrub } from '../secrets.js';
import { storeFaultHint } from '../store/store-fault.js';

/**
 * User mistakes and API refusals are one line; only bugs get a stack trace. Messages can quote API
 * text and stored errors, so they are scrubbed of secrets and of terminal control characters. Only
 * messages meant to span lines keep newlines: config errors (one problem per line), template compile
 * errors (Handlebars points at the column on a second line) and a bug's stack; in any other a newline
 * from the API could fake a line of output.
 */
export function reportFailure(error: unknown): number {
  if (error instanceof ReportdError) {
    const multiline = error instanceof ConfigError || error instanceof TemplateError;
    process.stderr.write(`reportd: ${printable(scrub(error.message), { multiline })}\n`);
    return error.exitCode;
  }
  // A store fault that escaped a command without naming its store (render, status…): still one line.
  const storeHint = storeFaultHint(error);
  if (storeHint) {
    process.stderr.write(`reportd: store: ${printable(scrub((error as Error).message))} (${storeHint})\n`);
    return 1;
  }
  const system = systemErrorLine(error);
  if (system) {
    process.stderr.write(`reportd: ${printable(scrub(system))}\n`);
    return 1;
  }
  const text = error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(
    `reportd: unexpected error (a bug, please report it):\n${printable(scrub(text), { multiline: true })}\n`,
  );
  return 70;
}
