import { readFileSync, statSync } from 'node:fs';
import { MAX_LOGO_BYTES } from '../../config/theme-section.js';

/**
 * A report's logo, loaded once into the only form reportd ships: a PNG it wrote itself, fitting
 * 1200 × 400 pixels. A PNG or JPEG is decoded and encoded again (raster-logo.ts); an SVG is drawn by
 * a renderer that runs no script and fetches nothing (svg-logo.ts). The file's kind comes from its
 * first bytes, not its name. Whatever is wrong is one line naming the file (theme.ts adds the config
 * path): `reportd check` shows it, a render fails with it.
 */

export interface Logo {
  type: 'image/png';
  png: Buffer;
  width: number;
  height: number;
  /** The PNG as a `data:` URL, the only kind of URL the PDF renderer lets a document load. */
  dataUrl: string;
}

type Kind = 'png' | 'jpeg' | 'svg';

function sniff(bytes: Buffer): Kind | undefined {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return 'png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'jpeg';
  // An SVG starts with markup and has its <svg> tag near the top (after a declaration, comments, a
  // DOCTYPE); other markup (an HTML page renamed .png) is no image at all.
  const head = bytes
    .subarray(0, 4096)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (head.startsWith('<') && /<([\w.-]+:)?svg[\s>/]/.test(head)) return 'svg';
  return undefined;
}

/** The logo's PNG, or what is wrong with the file (a line naming it, without the config path). */
export async function drawLogo(path: string): Promise<Logo | string> {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    return `${path} does not exist`;
  }
  if (size > MAX_LOGO_BYTES)
    return `${path} is ${Math.ceil(size / 1024)} KB, more than the ${MAX_LOGO_BYTES / 1024} KB a logo may be`;
  const bytes = readFileSync(path);
  const kind = sniff(bytes);
  if (!kind) return `${path} is not a PNG, JPEG or SVG file`;
  let image: { png: Buffer; width: number; height: number };
  // The decoders (pngjs, jpeg-js, saxes) are loaded only for a theme with a logo: a report without
  // one paid about 20 ms of CPU evaluating them.
  if (kind === 'svg') {
    const { rasteriseSvg } = await import('./svg-logo.js');
    const drawn = await rasteriseSvg(bytes);
    if ('refused' in drawn) return `${path} is refused: ${drawn.refused}`;
    image = drawn;
  } else {
    const { decodeRaster, encodePng, fitInBox } = await import('./raster-logo.js');
    let pixels: ReturnType<typeof decodeRaster>;
    try {
      pixels = fitInBox(decodeRaster(bytes, kind));
    } catch (error) {
      return `${path} is refused: ${(error as Error).message}`;
    }
    image = { png: encodePng(pixels), width: pixels.width, height: pixels.height };
  }
  return { type: 'image/png', ...image, dataUrl: `data:image/png;base64,${image.png.toString('base64')}` };
}
