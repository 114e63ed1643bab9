import { BodyTooLargeError } from '../errors/index.js';
/**
 * Limits on what one API answer may be, checked before anything recursive touches it. A valid JSON
 * body nested 100,000 levels deep parses fine in V8 (its parser is iterative) but overflows the stack
 * in every recursive walk after it (zod, JSON.stringify when storing, the report), and that failure
 * used to abort the whole account pass. Real payloads nest fewer than 10 levels.
 */

/** Deepest nesting of arrays and objects an answer may have. */
export const MAX_JSON_DEPTH = 64;

/** Default of `sync.max_payload_mb`: real payloads are well under 1 MB. */
export const DEFAULT_MAX_PAYLOAD_MB = 32;

/** The deepest nesting of `[`/`{` in a JSON text, scanning iteratively (strings are skipped). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) i++;
      else if (c === 0x22 /* " */) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return deepest;
}

/**
 * Reads a body as UTF-8 text, stopping (and destroying the stream) as soon as it passes `maxBytes`,
 * so a huge or endless answer costs at most the cap in memory, never the whole body.
 */
export async function readCapped(
  body: AsyncIterable<Uint8Array> & { destroy?(): unknown },
  maxBytes: number,
) {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) {
      body.destroy?.();
      throw new BodyTooLargeError(maxBytes);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
