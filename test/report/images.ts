import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

/** A solid-colour PNG of `width` × `height` (RGB, no filter): a logo a test can tell apart. */
export function solidPng(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const raw = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** The images of a PDF as poppler lists them: width and height of each. */
export function pdfImages(file: string): { width: number; height: number }[] {
  const out = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' });
  // Two header lines, then: page num type width height color comp bpc enc interp object ID …
  return out
    .split('\n')
    .slice(2)
    .filter((line) => line.trim())
    .map((line) => {
      const cols = line.trim().split(/\s+/);
      return { width: Number(cols[3]), height: Number(cols[4]) };
    });
}

/**
 * The colour of page 1 of a PDF at (`xMm`, `yMm`) from its top left, as poppler prints it at 36 dpi
 * (a PPM, read here without a decoder): `#RRGGBB`.
 */
export function pdfPixel(file: string, xMm: number, yMm: number): string {
  const prefix = `${file}-page`;
  execFileSync('pdftoppm', ['-r', '36', '-f', '1', '-l', '1', '-singlefile', file, prefix]);
  const ppm = readFileSync(`${prefix}.ppm`);
  rmSync(`${prefix}.ppm`);
  // P6 header: "P6\n<w> <h>\n<max>\n" then RGB bytes.
  const header = /^P6\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(ppm.subarray(0, 40).toString('latin1'));
  if (!header) throw new Error('pdftoppm did not write a P6 PPM');
  const width = Number(header[1]);
  const offset = header[0].length;
  const x = Math.round((xMm / 25.4) * 36);
  const y = Math.round((yMm / 25.4) * 36);
  const at = offset + (y * width + x) * 3;
  return `#${[...ppm.subarray(at, at + 3)].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join('')}`;
}
