import { readFileSync, statSync } from 'node:fs';
import { MAX_LOGO_BYTES } from '../../config/theme-section.js';
import { ThemeError } from '../../errors/index.js';

/**
 * A report's logo as a `data:` URL, the only kind of URL the renderer lets a document load. PNG and
 * JPEG are recognised by their first bytes (not the file name), so a renamed file is not passed off
 * as an image. An SVG is refused, not cleaned, when it holds anything that could run or reach out:
 * a sanitiser that misses one construct would leak, a refusal names the file and the author fixes it.
 */

export type LogoType = 'image/png' | 'image/jpeg' | 'image/svg+xml';

export interface Logo {
  type: LogoType;
  dataUrl: string;
  bytes: number;
}

/** Constructs an SVG logo may not hold, each with the reason given when it does. */
const SVG_REFUSALS: readonly [RegExp, string][] = [
  [/<\s*script\b/i, 'a <script> element'],
  [/\son[a-z]+\s*=/i, 'an event handler attribute (on…=)'],
  [/<\s*foreignObject\b/i, 'a <foreignObject> element'],
  [/<!\s*(DOCTYPE|ENTITY)\b/i, 'a DOCTYPE or ENTITY declaration'],
  // Every href must point inside the file (#id): anything else is a request or a script URL.
  [/\bhref\s*=\s*(["'])\s*(?!#)/i, 'an external reference (href not starting with #)'],
  [/\bhref\s*=\s*[^"'\s>]/i, 'an unquoted href'],
  [/url\(\s*(["']?)\s*(?!#)/i, 'an external url(…) reference'],
  [/@import\b/i, 'a CSS @import'],
  [/<\s*(iframe|embed|object|audio|video|image)\b[^>]*\bsrc\s*=/i, 'an element with src'],
  [/javascript:/i, 'a javascript: URL'],
];

/** Why an SVG document may not be embedded, or undefined when it may. */
export function svgRefusal(text: string): string | undefined {
  if (!/<\s*svg\b/i.test(text)) return 'it is not an SVG document';
  for (const [pattern, reason] of SVG_REFUSALS) if (pattern.test(text)) return `it holds ${reason}`;
  return undefined;
}

function sniff(bytes: Buffer): LogoType | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return 'image/png';
  }
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  const head = bytes.subarray(0, 512).toString('utf8').trimStart();
  if (head.startsWith('<')) return 'image/svg+xml';
  return undefined;
}

/** Reads and checks a logo file; a `ThemeError` naming `where` and the file says what is wrong. */
export function readLogo(path: string, where: string): Logo {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new ThemeError(`${where}: ${path} does not exist`);
  }
  if (size > MAX_LOGO_BYTES) {
    throw new ThemeError(
      `${where}: ${path} is ${Math.ceil(size / 1024)} KB, more than the ${MAX_LOGO_BYTES / 1024} KB a logo may be`,
    );
  }
  const bytes = readFileSync(path);
  const type = sniff(bytes);
  if (!type) throw new ThemeError(`${where}: ${path} is not a PNG, JPEG or SVG file`);
  if (type === 'image/svg+xml') {
    const refusal = svgRefusal(bytes.toString('utf8'));
    if (refusal) throw new ThemeError(`${where}: ${path} is refused: ${refusal}`);
  }
  return { type, dataUrl: `data:${type};base64,${bytes.toString('base64')}`, bytes: size };
}
