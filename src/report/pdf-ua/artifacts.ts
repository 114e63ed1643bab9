/**
 * Marks what Chromium paints outside the structure tree as artifacts (PDF/UA-1 §7.1: every piece of
 * content is either tagged or an artifact). Chromium tags what the accessibility tree has (each
 * element's content in a `BDC … EMC` sequence with an MCID) and leaves the rest unmarked: the running
 * header and footer of headerTemplate/footerTemplate, box backgrounds and borders, and whatever the
 * HTML hides from assistive technology (`aria-hidden`, `role="presentation"`). Wrapped in
 * `/Artifact BMC … EMC`, a screen reader skips them, as it would skip them in the HTML.
 *
 * One pass over the page's content stream, token by token, tracking only what decides where a
 * sequence may start and end: marked-content depth, text objects and path objects. A sequence is
 * opened just before unmarked painting at depth 0 (a path's construction, a text-showing operator, an
 * XObject, a shading) and closed before the next tagged sequence, at the edge of a text object, or at
 * the end: it never splits a path object and never crosses BT/ET. Anything this does not expect (an
 * inline image, unbalanced marked content) gives undefined, and the page is left as Chromium wrote it.
 */

const OPEN = Buffer.from('/Artifact BMC\n', 'latin1');
const CLOSE = Buffer.from('EMC\n', 'latin1');

/** Bytes that end a regular token (PDF whitespace and delimiters, ISO 32000-1 §7.2.2). */
const ENDS_TOKEN = new Uint8Array(256);
for (const c of ' \t\r\n\f\0()<>[]{}/%') ENDS_TOKEN[c.charCodeAt(0)] = 1;
const WHITESPACE = new Uint8Array(256);
for (const c of ' \t\r\n\f\0') WHITESPACE[c.charCodeAt(0)] = 1;

/** An operator of up to three bytes as one number (its bytes little-endian), so none becomes a string. */
const code = (op: string) => [...op].reduceRight((sum, c) => sum * 256 + c.charCodeAt(0), 0);

/** What an operator is to this pass; every operator not listed changes nothing here (`cm`, `Tf`…). */
enum Kind {
  Other,
  Begin,
  BeginBare,
  End,
  Text,
  Unknown,
  PathStart,
  PathPaint,
  NoPaint,
  TextShow,
  PaintAlone,
}
const KINDS = new Map<number, Kind>([
  [code('BDC'), Kind.Begin],
  [code('BMC'), Kind.BeginBare],
  [code('EMC'), Kind.End],
  [code('BT'), Kind.Text],
  [code('ET'), Kind.Text],
  [code('BI'), Kind.Unknown],
  [code('ID'), Kind.Unknown],
  ...['m', 're'].map((op) => [code(op), Kind.PathStart] as const),
  ...['f', 'F', 'f*', 'S', 's', 'B', 'B*', 'b', 'b*'].map((op) => [code(op), Kind.PathPaint] as const),
  [code('n'), Kind.NoPaint],
  ...['Tj', 'TJ', "'", '"'].map((op) => [code(op), Kind.TextShow] as const),
  ...['Do', 'sh'].map((op) => [code(op), Kind.PaintAlone] as const),
]);
const BT = code('BT');

/** Where a literal string `( … )` starting at `i` ends (balanced parentheses, backslash escapes). */
function endOfString(data: Uint8Array, i: number): number {
  let nesting = 0;
  for (; i < data.length; i++) {
    const c = data[i];
    if (c === 0x5c)
      i++; // backslash: the next byte is escaped
    else if (c === 0x28) nesting++;
    else if (c === 0x29 && --nesting === 0) return i + 1;
  }
  return -1;
}

/**
 * A regular token: -1 for an operand (a number, true, false, null), else the operator's `code`, or 0
 * for a longer operator (none of them matters here).
 */
function operatorCode(data: Uint8Array, start: number, end: number): number {
  const c = data[start]!;
  if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) return -1;
  if (end - start > 3) {
    const word = Buffer.from(data.buffer, data.byteOffset + start, end - start).toString('latin1');
    return word === 'true' || word === 'false' || word === 'null' ? -1 : 0;
  }
  let value = 0;
  for (let k = end - 1; k >= start; k--) value = value * 256 + data[k]!;
  return value;
}

/** Whether a `BDC`'s property list (the bytes before it) ties the sequence to the structure tree. */
const hasMcid = (data: Uint8Array, from: number, to: number) =>
  Buffer.from(data.buffer, data.byteOffset + from, to - from)
    .toString('latin1')
    .includes('/MCID');

/** The content stream with its unmarked painting wrapped as artifacts; undefined when not understood. */
export function markArtifacts(data: Uint8Array): Buffer | undefined {
  const inserts: [number, Buffer][] = [];
  let depth = 0;
  let inText = false;
  let open = false;
  /** Whether the open artifact began inside a text object: it must end on the same side of BT/ET. */
  let openedInText = false;
  let crossed = false;
  /** Where the current path object began, while it is unmarked at depth 0 and not yet painted. */
  let pathStart = -1;
  let operands = -1;
  let dicts = 0;
  let i = 0;
  const n = data.length;
  while (i < n) {
    const c = data[i]!;
    if (WHITESPACE[c]) {
      i++;
      continue;
    }
    const start = i;
    if (c === 0x25) {
      while (i < n && data[i] !== 0x0a && data[i] !== 0x0d) i++; // a comment
      continue;
    }
    if (c === 0x28) {
      i = endOfString(data, i);
      if (i < 0) return undefined;
    } else if (c === 0x3c && data[i + 1] === 0x3c) {
      dicts++;
      i += 2;
    } else if (c === 0x3e && data[i + 1] === 0x3e) {
      dicts--;
      i += 2;
    } else if (c === 0x3c) {
      i = data.indexOf(0x3e, i) + 1; // a hex string
      if (i === 0) return undefined;
    } else if (c === 0x2f) {
      i++;
      while (i < n && !ENDS_TOKEN[data[i]!]) i++; // a name
    } else if (ENDS_TOKEN[c]) {
      i++; // [ ] { }
    } else {
      while (i < n && !ENDS_TOKEN[data[i]!]) i++;
      // Most tokens are numbers: told apart by their first byte before anything else is looked at.
      const number = (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2e || c === 0x2b;
      const op = dicts === 0 && !number ? operatorCode(data, start, i) : -1;
      if (op >= 0) {
        const at = operands >= 0 ? operands : start;
        operands = -1;
        const kind = KINDS.get(op) ?? Kind.Other;
        if (kind === Kind.Other) continue;
        if (kind === Kind.Unknown) return undefined; // inline images: Chromium writes none
        let opens = false;
        let closes = false;
        if (kind === Kind.Begin || kind === Kind.BeginBare) {
          // A sequence of the structure tree ends the artifact; one without an MCID (an ActualText
          // span) is no real content by itself, so it stays inside the artifact or starts one.
          if (depth === 0) {
            if (kind === Kind.Begin && !hasMcid(data, at, start)) opens = true;
            else closes = true;
          }
          depth++;
        } else if (kind === Kind.End) {
          if (--depth < 0) return undefined;
        } else if (kind === Kind.Text) {
          closes = depth === 0;
        } else if (depth === 0) {
          if (inText) opens = kind === Kind.TextShow;
          else if (kind === Kind.PathStart) {
            if (!open && pathStart < 0) pathStart = at;
          } else if (kind === Kind.PathPaint) {
            if (pathStart >= 0) {
              if (!open) inserts.push([pathStart, OPEN]);
              if (!open) openedInText = inText;
              open = true;
            }
            pathStart = -1;
          } else if (kind === Kind.NoPaint) {
            pathStart = -1; // a clipping path paints nothing
          } else opens = kind === Kind.PaintAlone;
        }
        if (closes && open) {
          inserts.push([at, CLOSE]);
          if (openedInText !== inText) crossed = true;
          open = false;
        } else if (opens && !open) {
          inserts.push([at, OPEN]);
          openedInText = inText;
          open = true;
        }
        if (kind === Kind.Text) inText = op === BT;
        continue;
      }
    }
    if (operands < 0) operands = start;
  }
  if (open) inserts.push([n, Buffer.from('\nEMC\n', 'latin1')]);
  if (depth !== 0 || dicts !== 0 || inText || crossed) return undefined;
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const [at, bytes] of inserts) {
    parts.push(data.subarray(from, at), bytes);
    from = at;
  }
  parts.push(data.subarray(from));
  return Buffer.concat(parts);
}
