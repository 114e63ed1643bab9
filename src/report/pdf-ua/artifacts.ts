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
const ARTIFACT = Buffer.from('/Artifact BMC', 'latin1');
const FIGURE = Buffer.from('/Figure', 'latin1');
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
/**
 * KINDS by operator code, read per operator (a report's pages hold ~100,000 tokens): an array for
 * the one- and two-byte operators, the Map only for three bytes (marked content, rare). A Map lookup
 * per operator was a fifth of this pass.
 */
const SHORT_KINDS = new Uint8Array(1 << 16);
for (const [op, kind] of KINDS) if (op < SHORT_KINDS.length) SHORT_KINDS[op] = kind;
const kindOf = (op: number): Kind =>
  op < SHORT_KINDS.length ? SHORT_KINDS[op]! : (KINDS.get(op) ?? Kind.Other);

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

/** The MCID in a `BDC`'s property list (the bytes before it): what ties it to the structure tree. */
const mcidOf = (data: Uint8Array, from: number, to: number) => {
  const mcid = /\/MCID\s+(\d+)/.exec(
    Buffer.from(data.buffer, data.byteOffset + from, to - from).toString('latin1'),
  );
  return mcid ? Number(mcid[1]) : undefined;
};

/** Whether the sequence whose tag starts at `at` is a figure (a chart: its paths are its content). */
const isFigure = (data: Uint8Array, at: number) =>
  FIGURE.every((byte, k) => data[at + k] === byte) && ENDS_TOKEN[data[at + FIGURE.length]!] === 1;

/** A tagged sequence at depth 0 while it is read: what it paints decides whether it is decoration. */
interface Tagged {
  /** Where its tag starts and its `BDC` ends: the bytes `/Artifact BMC` replaces. */
  from: number;
  to: number;
  mcid: number;
  figure: boolean;
  paths: number;
  /** Text, an XObject, a shading or a nested tagged sequence: real content. */
  content: boolean;
}

/**
 * Where artifacts open and close in one content stream, operator by operator. Beside the unmarked
 * painting, a tagged sequence that paints nothing but paths outside a figure (a table's rules and
 * row backgrounds, a badge's box: Chromium tags the box of the element they belong to) is made an
 * artifact too: decoration, which a screen reader would otherwise meet as an empty part of the table.
 */
class Marker {
  /** `[at, bytes, end]`: `bytes` in place of `at..end` (an insertion when end is at). */
  readonly inserts: [number, Buffer, number?][] = [];
  /** The MCIDs of the tagged sequences made artifacts: the structure tree must let go of them. */
  readonly removed: number[] = [];
  tagged: Tagged | undefined;
  depth = 0;
  inText = false;
  open = false;
  /** Whether the open artifact began inside a text object: it must end on the same side of BT/ET. */
  openedInText = false;
  crossed = false;
  /** Where the current path object began, while it is unmarked at depth 0 and not yet painted. */
  pathStart = -1;

  constructor(private readonly decorations: boolean) {}

  /**
   * One operator of `kind` whose operands start at `at` (the operator itself at `start`); false when
   * the stream is not one this pass understands.
   */
  operator(kind: Kind, op: number, at: number, data: Uint8Array, start: number): boolean {
    if (kind === Kind.Unknown) return false; // inline images: Chromium writes none
    if (kind === Kind.Begin || kind === Kind.BeginBare) {
      // A sequence of the structure tree ends the artifact; one without an MCID (an ActualText
      // span) is no real content by itself, so it stays inside the artifact or starts one.
      const mcid = kind === Kind.Begin ? mcidOf(data, at, start) : undefined;
      const real = mcid !== undefined;
      if (this.depth === 0) {
        if (kind === Kind.Begin && !real) this.openAt(at);
        else this.closeAt(at);
        if (real && this.decorations) {
          this.tagged = {
            from: at,
            to: start + 3,
            mcid,
            figure: isFigure(data, at),
            paths: 0,
            content: false,
          };
        }
      } else if (real && this.tagged) this.tagged.content = true;
      this.depth++;
    } else if (kind === Kind.End) {
      if (--this.depth < 0) return false;
      if (this.depth === 0) this.endTagged();
    } else if (this.depth > 0) {
      if (this.tagged && (kind === Kind.TextShow || kind === Kind.PaintAlone)) this.tagged.content = true;
      if (this.tagged && kind === Kind.PathPaint) this.tagged.paths++;
      if (kind === Kind.Text) this.inText = op === BT;
    } else if (kind === Kind.Text) {
      if (this.depth === 0) this.closeAt(at);
      this.inText = op === BT;
    } else if (this.depth === 0) {
      if (this.inText) {
        if (kind === Kind.TextShow) this.openAt(at);
      } else if (kind === Kind.PathStart) {
        if (!this.open && this.pathStart < 0) this.pathStart = at;
      } else if (kind === Kind.PathPaint || kind === Kind.NoPaint) {
        // A clipping path (`n`) paints nothing; a painted one is wrapped from its first operator.
        if (kind === Kind.PathPaint && this.pathStart >= 0) this.openAt(this.pathStart);
        this.pathStart = -1;
      } else if (kind === Kind.PaintAlone) this.openAt(at);
    }
    return true;
  }

  /** A tagged sequence just ended: decoration alone becomes an artifact (its MCID no content). */
  endTagged(): void {
    const tagged = this.tagged;
    this.tagged = undefined;
    if (!tagged || tagged.figure || tagged.content || tagged.paths === 0) return;
    this.inserts.push([tagged.from, ARTIFACT, tagged.to]);
    this.removed.push(tagged.mcid);
  }

  openAt(at: number): void {
    if (this.open) return;
    this.inserts.push([at, OPEN]);
    this.openedInText = this.inText;
    this.open = true;
  }

  closeAt(at: number): void {
    if (!this.open) return;
    this.inserts.push([at, CLOSE]);
    if (this.openedInText !== this.inText) this.crossed = true;
    this.open = false;
  }
}

/** A content stream with its artifacts marked, and the MCIDs it no longer holds. */
export interface MarkedContent {
  content: Buffer;
  removed: number[];
}

/**
 * The content stream with its unmarked painting wrapped as artifacts, and (unless `decorations` is
 * false) its tagged decoration made artifacts too; undefined when not understood.
 */
export function markArtifacts(data: Uint8Array, { decorations = true } = {}): MarkedContent | undefined {
  const marker = new Marker(decorations);
  /** Where the operands of the next operator start (-1 before the first). */
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
        const kind = kindOf(op);
        if (kind !== Kind.Other && !marker.operator(kind, op, operands >= 0 ? operands : start, data, start))
          return undefined;
        operands = -1;
        continue;
      }
    }
    if (operands < 0) operands = start;
  }
  if (marker.open) marker.inserts.push([n, Buffer.from('\nEMC\n', 'latin1')]);
  if (marker.depth !== 0 || dicts !== 0 || marker.inText || marker.crossed) return undefined;
  const parts: Uint8Array[] = [];
  let from = 0;
  // Replacements are known when their sequence ends: in place by position, insertions first at a tie.
  const edits = marker.inserts.map((edit, order) => ({ edit, order }));
  edits.sort((a, b) => a.edit[0] - b.edit[0] || a.order - b.order);
  for (const {
    edit: [at, bytes, end],
  } of edits) {
    parts.push(data.subarray(from, at), bytes);
    from = end ?? at;
  }
  parts.push(data.subarray(from));
  return { content: Buffer.concat(parts), removed: marker.removed };
}
