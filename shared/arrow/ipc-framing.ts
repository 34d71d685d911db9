/**
 * Walks the message framing of an Arrow IPC stream without decoding any data. The Arrow
 * JS reader stops quietly at a message boundary when bytes run out, so a stream cut short
 * in transit (or two streams glued together) would otherwise decode as fewer rows and be
 * acknowledged as if complete. A stream is whole only when its messages end exactly in
 * the end-of-stream marker at the last byte.
 *
 * An IPC file is `ARROW1`, padding, the stream's messages, then a footer (the schema and
 * where each record batch message lies), its length and `ARROW1` again: so the messages of
 * a file can be found from its last bytes alone, and read as a stream of their own.
 */
import { Message, type Schema, Table, tableToIPC } from 'apache-arrow';
// The footer's reader is not re-exported from the package root; this path is the package's
// own export (`./*`) of the module its file reader uses.
import { Footer } from 'apache-arrow/ipc/metadata/file';

const CONTINUATION = -1;
const END_OF_STREAM = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0);
const FILE_MAGIC = [0x41, 0x52, 0x52, 0x4f, 0x57, 0x31]; // "ARROW1"
/** The magic and its padding to 8 bytes, before a file's first message. */
const FILE_HEAD_BYTES = 8;
/** The footer's length (int32) and the magic, after the footer. */
const FILE_TRAILER_BYTES = 4 + FILE_MAGIC.length;

/** Whether `bytes` open, or close, with the IPC file magic. */
export function hasFileMagic(bytes: Uint8Array, where: 'start' | 'end'): boolean {
  const at = where === 'start' ? 0 : bytes.length - FILE_MAGIC.length;
  return at >= 0 && FILE_MAGIC.every((byte, i) => bytes[at + i] === byte);
}

/** Why `bytes` is not one complete IPC stream, or null when it is. */
export function streamFramingProblem(bytes: Uint8Array): string | null {
  return streamMessages(bytes).problem;
}

/** The messages of an IPC stream, their headers decoded, and why it is not whole (null when it is). */
export function streamMessages(bytes: Uint8Array): { messages: Message[]; problem: string | null } {
  const messages: Message[] = [];
  const problem = walkStream(bytes, messages);
  return { messages, problem };
}

function walkStream(bytes: Uint8Array, messages: Message[]): string | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let pos = 0;
  for (let index = 0; ; index++) {
    if (pos + 4 > bytes.length) return `truncated before message ${index} (no end-of-stream marker)`;
    let metadataLength = view.getInt32(pos, true);
    pos += 4;
    if (metadataLength === CONTINUATION) {
      if (pos + 4 > bytes.length) return `truncated in the header of message ${index}`;
      metadataLength = view.getInt32(pos, true);
      pos += 4;
    }
    if (metadataLength === 0) {
      return pos === bytes.length ? null : `${bytes.length - pos} bytes after the end-of-stream marker`;
    }
    if (metadataLength < 0 || pos + metadataLength > bytes.length) {
      return `message ${index} declares ${metadataLength} metadata bytes, ${bytes.length - pos} remain`;
    }
    let message: Message;
    try {
      message = Message.decode(bytes.subarray(pos, pos + metadataLength));
    } catch {
      return `message ${index} has unreadable metadata`;
    }
    messages.push(message);
    const { bodyLength } = message;
    pos += metadataLength;
    if (!Number.isSafeInteger(bodyLength) || bodyLength < 0 || pos + bodyLength > bytes.length) {
      return `message ${index} declares a ${bodyLength}-byte body, ${bytes.length - pos} remain`;
    }
    pos += bodyLength;
  }
}

/** Where one IPC message lies: `[start, end)`, from its continuation marker to the end of its body. */
export interface MessageSpan {
  start: number;
  end: number;
}

export type FileFooter =
  | { kind: 'footer'; schema: Schema; recordBatches: MessageSpan[] }
  /** The footer starts before the bytes given: read the file from `from` and ask again. */
  | { kind: 'short'; from: number }
  | { kind: 'bad'; problem: string };

/**
 * The footer of an IPC file of `size` bytes, from its last bytes `tail` (the whole file will
 * do): its schema, metadata included, and the span of every record batch message, in order.
 */
export function fileFooter(tail: Uint8Array, size: number): FileFooter {
  const tailStart = size - tail.length;
  const trailerAt = tail.length - FILE_TRAILER_BYTES;
  if (tailStart < 0 || size < FILE_HEAD_BYTES + FILE_TRAILER_BYTES) {
    return { kind: 'bad', problem: `${tail.length} bytes cannot end a ${size}-byte file` };
  }
  if (!hasFileMagic(tail, 'end')) return { kind: 'bad', problem: 'no closing magic' };
  const footerLength = new DataView(tail.buffer, tail.byteOffset).getInt32(trailerAt, true);
  const footerStart = size - FILE_TRAILER_BYTES - footerLength;
  if (footerLength <= 0 || footerStart < FILE_HEAD_BYTES) {
    return { kind: 'bad', problem: `declares a ${footerLength}-byte footer in ${size} bytes` };
  }
  if (footerStart < tailStart) return { kind: 'short', from: footerStart };
  let schema: Schema;
  let spans: MessageSpan[];
  try {
    const footer = Footer.decode(tail.subarray(footerStart - tailStart, trailerAt));
    schema = footer.schema;
    spans = [...footer.recordBatches()].map((b) => ({
      start: b.offset,
      end: b.offset + b.metaDataLength + b.bodyLength,
    }));
  } catch {
    return { kind: 'bad', problem: 'unreadable footer' };
  }
  const problem = spansProblem(spans, footerStart);
  return problem ? { kind: 'bad', problem } : { kind: 'footer', schema, recordBatches: spans };
}

/** Why record batch spans cannot be a file's whose footer starts at `footerStart`, or null. */
function spansProblem(spans: readonly MessageSpan[], footerStart: number): string | null {
  let after = FILE_HEAD_BYTES;
  for (const [index, { start, end }] of spans.entries()) {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < after || end > footerStart) {
      return `record batch ${index} lies at [${start}, ${end}), outside the file's messages or out of order`;
    }
    after = end;
  }
  return null;
}

/** The IPC message of `schema` alone, the head of a stream. */
export function schemaMessage(schema: Schema): Uint8Array {
  const stream = tableToIPC(new Table(schema), 'stream');
  return stream.slice(0, stream.length - END_OF_STREAM.length);
}

/** Whole IPC messages taken out of a file or another stream, as a stream of their own behind `head`. */
export function asStream(head: Uint8Array, messages: Uint8Array): Uint8Array {
  const stream = new Uint8Array(head.length + messages.length + END_OF_STREAM.length);
  stream.set(head, 0);
  stream.set(messages, head.length);
  stream.set(END_OF_STREAM, head.length + messages.length);
  return stream;
}
