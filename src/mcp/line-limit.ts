import { Transform, type TransformCallback } from 'node:stream';

/**
 * stdin's JSON-RPC lines on their way to the SDK's stdio transport, each at most `maxLine` bytes. A
 * longer line is not buffered: its bytes are dropped as they come, up to its newline, and it is
 * reported once (with the request id, when its first or last bytes show one) so that the server can
 * answer it with an error and go on. Left to itself, the SDK buffers up to 10 MB and then closes the
 * transport: the server exited 0, silently, on one oversized message.
 */

/** The longest message `reportd mcp` reads on stdin: its tools take ids and names, a few hundred bytes. */
export const MAX_STDIO_LINE = 4 * 1024 * 1024;

/** What is kept of an oversized line's ends, to find its id. */
const END_BYTES = 512;

export interface Oversized {
  /** The request's id when it could be read, else null (JSON-RPC's id of an unreadable request). */
  id: string | number | null;
  bytes: number;
}

export class LineLimit extends Transform {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipping = false;
  private head = Buffer.alloc(0);
  private tail = Buffer.alloc(0);

  constructor(
    private readonly maxLine: number,
    private readonly onOversized: (line: Oversized) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      this.takePiece(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) break;
      this.endLine();
      start = newline + 1;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (!this.skipping && this.pendingBytes > 0) this.push(Buffer.concat(this.pending));
    done();
  }

  private takePiece(piece: Buffer): void {
    if (this.head.length < END_BYTES)
      this.head = Buffer.concat([this.head, piece.subarray(0, END_BYTES - this.head.length)]);
    if (!this.skipping && this.pendingBytes + piece.length > this.maxLine) {
      this.skipping = true;
      this.pending = [];
    }
    this.pendingBytes += piece.length;
    if (this.skipping) {
      const joined = Buffer.concat([this.tail, piece.subarray(Math.max(0, piece.length - END_BYTES))]);
      this.tail = joined.subarray(Math.max(0, joined.length - END_BYTES));
    } else this.pending.push(piece);
  }

  private endLine(): void {
    if (this.skipping) this.onOversized({ id: requestId(this.head, this.tail), bytes: this.pendingBytes });
    else this.push(Buffer.concat([...this.pending, Buffer.from('\n')]));
    this.pending = [];
    this.pendingBytes = 0;
    this.skipping = false;
    this.head = Buffer.alloc(0);
    this.tail = Buffer.alloc(0);
  }
}

const ID = String.raw`"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,15})`;

/**
 * The top-level id of a request seen only by its ends: clients write it first (`{"jsonrpc":"2.0",
 * "id":7,…`) or last (`…,"id":7}`, as the SDK's own client does).
 */
function requestId(head: Buffer, tail: Buffer): string | number | null {
  const found =
    new RegExp(`${ID}\\s*\\}\\s*\\r?$`).exec(tail.toString('utf8')) ??
    new RegExp(`^\\s*\\{\\s*(?:"jsonrpc"\\s*:\\s*"2\\.0"\\s*,\\s*)?${ID}`).exec(head.toString('utf8'));
  if (!found) return null;
  try {
    return JSON.parse(found[1]!) as string | number;
  } catch {
    return null;
  }
}
