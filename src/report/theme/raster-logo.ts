import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';

/**
 * PNG and JPEG logos decoded to pixels and written again as a fresh PNG: a file that is not the image
 * its first bytes claim fails to decode and is refused, and nothing of the original file but its
 * pixels is shipped (no text chunks, no metadata; a PNG with bytes after its end is refused). pngjs and jpeg-js are plain
 * JavaScript: no native decoder parses an author's file in the process. The size is read from the
 * header before any pixel is decoded, so a small file that claims a huge picture costs nothing.
 */

/** Largest picture a logo may be, in pixels, before it is scaled down: 16 megapixels (64 MB decoded). */
export const MAX_LOGO_PIXELS = 16_000_000;

/** The box every shipped logo fits in (pixels): sharp at print size on the cover, light in an email. */
export const LOGO_BOX = { width: 1200, height: 400 } as const;

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, 4 bytes a pixel, rows top to bottom. */
  data: Buffer;
}

/** Width and height from a PNG's IHDR or a JPEG's start-of-frame; undefined when none is found. */
export function rasterSize(
  bytes: Buffer,
  type: 'png' | 'jpeg',
): { width: number; height: number } | undefined {
  if (type === 'png') {
    if (bytes.length < 24 || bytes.toString('latin1', 12, 16) !== 'IHDR') return undefined;
    return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  }
  // JPEG segments: FF xx, a big-endian length; SOF0–SOF15 (not DHT C4, JPG C8, DAC CC) hold the size.
  let at = 2;
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined;
    const marker = bytes[at + 1]!;
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: bytes.readUInt16BE(at + 7), height: bytes.readUInt16BE(at + 5) };
    }
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  return undefined;
}

/** Why a raster image may not be decoded (its size unreadable or too big), or undefined. */
export function rasterSizeRefusal(bytes: Buffer, type: 'png' | 'jpeg'): string | undefined {
  const size = rasterSize(bytes, type);
  const name = type.toUpperCase();
  if (!size) return `it is not a ${name} image (its header has no size)`;
  if (size.width === 0 || size.height === 0)
    return `it is a ${name} of ${size.width} × ${size.height} pixels`;
  if (size.width * size.height > MAX_LOGO_PIXELS)
    return `it is ${size.width} × ${size.height} pixels, more than the ${MAX_LOGO_PIXELS / 1_000_000} megapixels a logo may have`;
  return undefined;
}

/** Decodes a PNG or JPEG to RGBA pixels; throws a one-line reason when it is not a whole image. */
export function decodeRaster(bytes: Buffer, type: 'png' | 'jpeg'): Pixels {
  const refusal = rasterSizeRefusal(bytes, type);
  if (refusal) throw new Error(refusal);
  try {
    if (type === 'png') {
      const png = PNG.sync.read(bytes);
      return { width: png.width, height: png.height, data: png.data };
    }
    const image = jpeg.decode(bytes, {
      formatAsRGBA: true,
      tolerantDecoding: false,
      maxResolutionInMP: MAX_LOGO_PIXELS / 1_000_000,
      maxMemoryUsageInMB: 256,
    });
    return { width: image.width, height: image.height, data: image.data };
  } catch (error) {
    throw new Error(`it does not decode as a ${type.toUpperCase()} image (${(error as Error).message})`);
  }
}

/**
 * Pixels scaled down to fit `box` (never up), each output pixel the average of the source pixels it
 * covers: a 4000-pixel logo becomes a 1200-pixel one without the jagged edges of dropping pixels.
 */
export function fitInBox(pixels: Pixels, box: { width: number; height: number } = LOGO_BOX): Pixels {
  const scale = Math.min(1, box.width / pixels.width, box.height / pixels.height);
  if (scale === 1) return pixels;
  const width = Math.max(1, Math.round(pixels.width * scale));
  const height = Math.max(1, Math.round(pixels.height * scale));
  const data = Buffer.alloc(width * height * 4);
  const source = pixels.data;
  for (let y = 0; y < height; y++) {
    const y0 = Math.floor((y * pixels.height) / height);
    const y1 = Math.max(y0 + 1, Math.floor(((y + 1) * pixels.height) / height));
    for (let x = 0; x < width; x++) {
      const x0 = Math.floor((x * pixels.width) / width);
      const x1 = Math.max(x0 + 1, Math.floor(((x + 1) * pixels.width) / width));
      let r = 0;
      let g = 0;
      let b = 0;
      let a = 0;
      for (let sy = y0; sy < y1; sy++) {
        for (let at = (sy * pixels.width + x0) * 4, end = (sy * pixels.width + x1) * 4; at < end; at += 4) {
          r += source[at]!;
          g += source[at + 1]!;
          b += source[at + 2]!;
          a += source[at + 3]!;
        }
      }
      const count = (y1 - y0) * (x1 - x0);
      const out = (y * width + x) * 4;
      data[out] = Math.round(r / count);
      data[out + 1] = Math.round(g / count);
      data[out + 2] = Math.round(b / count);
      data[out + 3] = Math.round(a / count);
    }
  }
  return { width, height, data };
}

/** A fresh PNG of the pixels (RGBA, 8 bits a channel): the only form a logo is shipped in. */
export function encodePng(pixels: Pixels): Buffer {
  const png = new PNG({ width: pixels.width, height: pixels.height });
  pixels.data.copy(png.data);
  return PNG.sync.write(png, { colorType: 6 });
}
