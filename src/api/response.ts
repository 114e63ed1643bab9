import type { z } from 'zod';
import { type RequestContext, ResponseValidationError } from '../errors/index.js';
import { scrub } from '../secrets.js';
import { jsonDepth, MAX_JSON_DEPTH } from './bounded-json.js';
import type { EndpointDef } from './endpoints.js';
import type { RequestOutcome } from './error-codes.js';

/**
 * How the client reads what the API answered: one attempt's body classified, a whole answer checked
 * against its endpoint's schema. What to do about a failure (retry, wait, give up) is client.ts's.
 */

/** What one attempt produced, before the retry policy looks at it. */
export type AttemptResult =
  | { kind: 'ok'; payload: unknown }
  | { kind: 'code'; code: number; serverMessage: string }
  /** An answer no retry can fix (too large, nested too deep): the payload fails like a schema miss. */
  | { kind: 'rejected'; reason: string }
  | { kind: 'transient'; reason: string; cause: unknown };

/**
 * Reads one answer. The `error_code` shape wins over any status (the API fails with 500, and a 200 in
 * that shape is still a failure); anything that is not JSON, or a non-2xx without a code (a proxy's
 * HTML 502), is transient.
 */
export function interpretResponse(status: number, text: string): AttemptResult {
  // The cause is built from the scrubbed snippet, never JSON.parse's SyntaxError: that one quotes the
  // raw body.
  const transient = (reason: string): AttemptResult => ({
    kind: 'transient',
    reason,
    cause: new Error(reason),
  });
  // Checked before parsing: every walk after JSON.parse (the schema, storing, the report) recurses.
  const depth = jsonDepth(text);
  if (depth > MAX_JSON_DEPTH) {
    return { kind: 'rejected', reason: `JSON nested ${depth} levels deep (at most ${MAX_JSON_DEPTH})` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return transient(`HTTP ${status} with a body that is not JSON: ${snippet(text)}`);
  }
  if (json !== null && typeof json === 'object' && !Array.isArray(json) && 'error_code' in json) {
    const { error_code: code, error_message: message } = json as Record<string, unknown>;
    if (typeof code === 'number' && Number.isInteger(code)) {
      return { kind: 'code', code, serverMessage: typeof message === 'string' ? scrub(message) : '' };
    }
    return transient(`HTTP ${status} with a malformed error_code: ${snippet(text)}`);
  }
  if (status >= 200 && status < 300) return { kind: 'ok', payload: json };
  return transient(`HTTP ${status} without an error_code: ${snippet(text)}`);
}

function snippet(text: string): string {
  const flat = scrub(text).replace(/\s+/g, ' ').trim();
  if (!flat) return '(empty body)';
  return flat.length > 120 ? `${flat.slice(0, 120)}…` : flat;
}

/** `history.3: Invalid input: expected number, received string; delta: …` — paths from the payload root. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  const shown = issues.slice(0, 5).map((issue) => {
    const where = issue.path.length ? issue.path.map(String).join('.') : '(root)';
    return `${where}: ${issue.message}`;
  });
  if (issues.length > shown.length) shown.push(`and ${issues.length - shown.length} more`);
  return shown.join('; ');
}

/** The request an attempt belongs to, and how the attempt reports its outcome (log, metrics). */
export interface AttemptReport {
  context: RequestContext;
  report: (outcome: RequestOutcome) => void;
}

/** An answer read whole: the payload when the endpoint's schema takes it, else the validation error. */
export function validated<S extends z.ZodType>(
  endpoint: EndpointDef<S>,
  result: Extract<AttemptResult, { kind: 'ok' | 'rejected' }>,
  { context, report }: AttemptReport,
): z.infer<S> {
  if (result.kind === 'rejected') {
    report('invalid_payload');
    throw new ResponseValidationError(`${endpoint.key}: ${result.reason}`, context, null);
  }
  const parsed = endpoint.schema.safeParse(result.payload);
  if (parsed.success) {
    report('ok');
    return parsed.data;
  }
  report('invalid_payload');
  throw new ResponseValidationError(
    `${endpoint.key}: ${describeIssues(parsed.error.issues)}`,
    context,
    result.payload,
  );
}
