/**
 * Walks the message framing of an Arrow IPC stream without decoding any data. The Arrow
 * JS reader stops quietly at a message boundary when bytes run out, so a stream cut short
 * in transit (or two streams glued together) would otherwise decode as fewer rows and be
 * acknowledged as if complete. A stream is whole only when its messages end exactly in
 * the end-of-stream marker at the last byte.
 */
import { Message } from 'apache-arrow';

const CONTINUATION = -1;

/** Why `bytes` is not one complete IPC stream, or null when it is. */
export function streamFramingProblem(bytes: Uint8Array): string | null {
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
    let bodyLength: number;
    try {
      bodyLength = Message.decode(bytes.subarray(pos, pos + metadataLength)).bodyLength;
    } catch {
      return `message ${index} has unreadable metadata`;
    }
    pos += metadataLength;
    if (!Number.isSafeInteger(bodyLength) || bodyLength < 0 || pos + bodyLength > bytes.length) {
      return `message ${index} declares a ${bodyLength}-byte body, ${bytes.length - pos} remain`;
    }
    pos += bodyLength;
  }
}
