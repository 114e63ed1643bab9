import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { afterAll, describe, expect, it } from 'vitest';
import { drawLogo } from '../../src/report/theme/logo.js';
import { rasteriseSvg } from '../../src/report/theme/svg-logo.js';
import { solidPng } from './images.js';

/**
 * What a logo file becomes: a PNG reportd wrote, holding the picture's pixels and nothing else of the
 * file, or a refusal that names the file and the reason. The SVG renderer's time is bounded.
 */
const dir = mkdtempSync(join(tmpdir(), 'reportd-logo-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const drawn = async (path: string) => {
  const logo = await drawLogo(path);
  if (typeof logo === 'string') throw new Error(logo);
  return { logo, pixels: PNG.sync.read(logo.png) };
};

describe('logos as pixels', () => {
  it('writes a PNG again from its pixels: its text chunks do not travel, bytes after it are refused', async () => {
    const original = solidPng(20, 10, [10, 120, 200]);
    const body = Buffer.concat([Buffer.from('tEXt'), Buffer.from('Comment\0<script>alert(1)</script>')]);
    const chunk = Buffer.alloc(body.length + 8);
    chunk.writeUInt32BE(body.length - 4, 0);
    body.copy(chunk, 4);
    chunk.writeUInt32BE(crc32(body), body.length + 4);
    // Before IEND (its last 12 bytes): a valid PNG carrying a comment.
    const commented = Buffer.concat([original.subarray(0, -12), chunk, original.subarray(-12)]);
    const { logo, pixels } = await drawn(file('a.png', commented));
    expect([pixels.width, pixels.height]).toEqual([20, 10]);
    expect([...pixels.data.subarray(0, 4)]).toEqual([10, 120, 200, 255]);
    expect(commented.toString('latin1')).toContain('<script>');
    expect(logo.png.toString('latin1')).not.toContain('script');
    expect(logo.dataUrl.startsWith('data:image/png;base64,')).toBe(true);
    // A page glued after the image makes a file that is two things at once: refused.
    const polyglot = file('b.png', Buffer.concat([original, Buffer.from('<html><script>alert(1)</script>')]));
    expect(await drawLogo(polyglot)).toMatch(/b\.png is refused: it does not decode as a PNG image/);
  });

  it('decodes a JPEG and ships it as a PNG, its comment left behind; a large picture is scaled into the box', async () => {
    const data = Buffer.alloc(2400 * 100 * 4, 200);
    const encoded = jpeg.encode({ width: 2400, height: 100, data, comments: ['<svg onload=alert(1)>'] }, 90);
    const { logo, pixels } = await drawn(file('wide.jpg', encoded.data));
    expect([pixels.width, pixels.height]).toEqual([1200, 50]);
    expect(logo.png.toString('latin1')).not.toContain('onload');
  });

  it('refuses a file that is not the image it claims, or claims a picture too large to decode', async () => {
    const png = solidPng(20, 10, [1, 2, 3]);
    expect(await drawLogo(file('cut.png', png.subarray(0, 40)))).toMatch(
      /cut\.png is refused: it does not decode as a PNG image/,
    );
    const huge = Buffer.from(png);
    huge.writeUInt32BE(100_000, 16);
    huge.writeUInt32BE(100_000, 20);
    expect(await drawLogo(file('huge.png', huge))).toMatch(
      /huge\.png is refused: it is 100000 × 100000 pixels, more than the 16 megapixels a logo may have$/,
    );
    expect(await drawLogo(file('fake.jpg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 4, 1, 2])))).toMatch(
      /fake\.jpg is refused: it is not a JPEG image/,
    );
    expect(await drawLogo(file('notes.png', 'just text'))).toMatch(
      /notes\.png is not a PNG, JPEG or SVG file$/,
    );
  });

  it('stops drawing an SVG made to be slow at the time limit, in a child process', async () => {
    const slow = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="400"><filter id="f"><feMorphology radius="400"/></filter><rect width="1200" height="400" fill="red" filter="url(#f)"/></svg>',
    );
    expect(await rasteriseSvg(slow, { timeoutMs: 1_000 })).toEqual({
      refused: 'drawing it took longer than 1 s',
    });
    // The same renderer draws a plain file, filling the box.
    const plain = await rasteriseSvg(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="10"><rect width="30" height="10"/></svg>',
      ),
    );
    expect(plain).toMatchObject({ width: 1200, height: 400 });
  });
});
