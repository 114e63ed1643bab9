import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { LOGO_BOX, rasterSize, rasterSizeRefusal } from './raster-logo.js';
import { readSvg } from './svg-cost.js';

/**
 * An SVG logo turned into pixels once, when it is loaded, so no SVG an author wrote ever reaches
 * Chromium, a mail client or a workbook: only the PNG made here does.
 *
 * The renderer is resvg (@resvg/resvg-js): a Rust SVG renderer with no script engine and no network
 * code at all, so `<script>`, event handlers, `<foreignObject>`, CSS `@import` and remote hrefs have
 * nothing to run them or fetch them; it is maintained, follows SVG 1.1 and much of SVG 2, and ships
 * prebuilt for Linux (glibc and musl), macOS and Windows through the npm registry. Before it sees the
 * file, svg-cost.ts bounds the nodes it would expand to and refuses references to files on this
 * machine (resvg would read an `<image>`'s local path). It then runs in a child process with a time
 * limit: a file that still takes too long (a filter made to be slow) is killed, not waited for, and
 * whatever memory it took goes with the process.
 */

/** How long rasterising one logo may take: a detailed logo takes well under a second. */
export const SVG_RENDER_MS = 5_000;

/**
 * The child's whole program, inline so it runs the same from src/ (tests) as from dist/. It reads
 * the SVG on stdin and writes the PNG on stdout, scaled to fit the box; a failure is one stderr line.
 */
const CHILD = `
const [resvgPath, boxWidth, boxHeight] = process.argv.slice(1);
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  try {
    const { Resvg } = require(resvgPath);
    const svg = Buffer.concat(chunks);
    const options = { font: { loadSystemFonts: true }, logLevel: 'off' };
    const size = new Resvg(svg, options);
    const zoom = Math.min(Number(boxWidth) / size.width, Number(boxHeight) / size.height);
    if (!(zoom > 0) || !Number.isFinite(zoom) || size.width * zoom < 1 || size.height * zoom < 1)
      throw new Error('its size (' + size.width + ' x ' + size.height + ') cannot be drawn');
    const image = new Resvg(svg, { ...options, fitTo: { mode: 'zoom', value: zoom } }).render();
    process.stdout.write(image.asPng());
  } catch (error) {
    process.stderr.write(String(error && error.message ? error.message : error).split('\\n')[0]);
    process.exitCode = 2;
  }
});
`;

const RESVG = createRequire(import.meta.url).resolve('@resvg/resvg-js');

/** Most bytes the child may answer with: a 1200 × 400 RGBA PNG is under 2 MB even as noise. */
const MAX_PNG_BYTES = 8 * 1024 * 1024;

/** The SVG's PNG (fitting LOGO_BOX), or the one-line reason it is refused. */
export async function rasteriseSvg(
  svg: Buffer,
  limits: { timeoutMs?: number } = {},
): Promise<{ png: Buffer; width: number; height: number } | { refused: string }> {
  const reading = readSvg(svg.toString('utf8'));
  if (!reading.ok) return { refused: reading.reason };
  for (const image of reading.images) {
    const refusal = rasterSizeRefusal(Buffer.from(image.base64, 'base64'), image.type);
    if (refusal) return { refused: `an image it embeds is refused: ${refusal}` };
  }
  const timeoutMs = limits.timeoutMs ?? SVG_RENDER_MS;
  const ran = await oneAtATime(() => runChild(svg, timeoutMs));
  if (ran.timedOut) return { refused: `drawing it took longer than ${timeoutMs / 1000} s` };
  if (ran.code !== 0)
    return {
      refused: ran.stderr
        ? `the SVG renderer refused it: ${ran.stderr.replace(/^Error: /, '')}`
        : `the SVG renderer stopped (${ran.signal ?? `exit ${ran.code}`}): it may need more memory than a logo should`,
    };
  const size = rasterSize(ran.stdout, 'png');
  // The box, give or take the rounding of the zoom.
  if (!size || size.width > LOGO_BOX.width + 1 || size.height > LOGO_BOX.height + 1)
    return { refused: 'the SVG renderer gave no image of the expected size' };
  return { png: ran.stdout, ...size };
}

/**
 * Drawings run one after another: each gets the machine to itself for its time limit, so `check` over
 * many logos does not make a sound one look slow (and a slow one delays the rest by its limit at most).
 */
let queue: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(task: () => Promise<T>): Promise<T> {
  const run = queue.then(task, task);
  queue = run.catch(() => undefined);
  return run;
}

/**
 * What the child needs of the environment: where fonts are (resvg reads the system's and the user's
 * folders, and fontconfig's files), nothing else: no API secret or SMTP password goes along.
 */
function fontEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(
    Object.entries(process.env).filter(([name]) =>
      /^(HOME|PATH|LANG|LC_\w+|XDG_\w+|FONTCONFIG_\w+)$/.test(name),
    ),
  );
}

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

function runChild(input: Buffer, timeoutMs: number): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['-e', CHILD, RESVG, String(LOGO_BOX.width), String(LOGO_BOX.height)],
      { stdio: ['pipe', 'pipe', 'pipe'], timeout: timeoutMs, killSignal: 'SIGKILL', env: fontEnv() },
    );
    const out: Buffer[] = [];
    let outBytes = 0;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > MAX_PNG_BYTES) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 500) stderr += chunk.toString('utf8');
    });
    child.on('error', reject);
    const started = Date.now();
    child.on('close', (code, signal) =>
      resolve({
        code,
        signal,
        stdout: Buffer.concat(out),
        stderr: stderr.trim().slice(0, 300),
        timedOut: signal === 'SIGKILL' && Date.now() - started >= timeoutMs,
      }),
    );
    // The child may die before it reads everything (a kill): a broken pipe is its answer, not ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}
