/**
 * The object store is the single source of truth (docs/design.md, "Object layout"). Every implementation
 * offers the same operations with the same semantics; conditional writes are how every
 * commit in Sluice is made, so a conflict is always a typed `PRECONDITION_FAILED` error
 * and never a silent overwrite.
 */

export interface ObjectMeta {
  key: string;
  size: number;
  /** Opaque version tag; changes whenever the object is replaced. */
  etag: string;
  lastModified: Date;
}

export interface StoredObject {
  body: Uint8Array;
  meta: ObjectMeta;
}

/** Byte range, `start` inclusive, `end` exclusive; `end` omitted = to the end of the object. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface OpOptions {
  signal?: AbortSignal;
}

export interface PutOptions extends OpOptions {
  /**
   * No ack waits on this write (an L0 file): a store whose disk the acked writes share may
   * take longer over it so that their fsyncs do not queue behind it. S3 ignores it.
   */
  background?: boolean;
}

export interface GetOptions extends OpOptions {
  range?: ByteRange;
}

export interface ListOptions extends OpOptions {
  /** Only keys strictly greater than this one. */
  startAfter?: string;
  /** Keys per page (the store may return fewer). */
  pageSize?: number;
}

/** Bytes written durably where no reader sees them, waiting for their key (see `stage`). */
export interface StagedObject {
  /** Publishes the staged bytes at `key` unless an object exists there (PRECONDITION_FAILED). */
  putIfAbsent(key: string, options?: OpOptions): Promise<ObjectMeta>;
  /** Frees the staged bytes; the published object, if any, stays. */
  discard(): Promise<void>;
}

export interface ObjectStore {
  /** The URL the store was opened from, for logs and errors. */
  readonly url: string;
  /** The object, or null when it does not exist. */
  get(key: string, options?: GetOptions): Promise<StoredObject | null>;
  head(key: string, options?: OpOptions): Promise<ObjectMeta | null>;
  /** Unconditional write; atomic: a reader sees the old object or the new one, never a mix. */
  put(key: string, body: Uint8Array, options?: PutOptions): Promise<ObjectMeta>;
  /** Writes only if no object exists at `key`; otherwise throws PRECONDITION_FAILED. */
  putIfAbsent(key: string, body: Uint8Array, options?: OpOptions): Promise<ObjectMeta>;
  /**
   * Makes `body` durable before its key is known, so that a caller can decide the key
   * meanwhile; its put-if-absent is then only the atomic publish. Only stores whose writes
   * have such a first half offer it (the file store); S3 takes the key with the bytes.
   */
  stage?(body: Uint8Array, options?: OpOptions): Promise<StagedObject>;
  /** Writes only if the current object has `etag`; otherwise throws PRECONDITION_FAILED. */
  putIfMatch(key: string, body: Uint8Array, etag: string, options?: OpOptions): Promise<ObjectMeta>;
  /** Pages of objects under `prefix`, in ascending key order. */
  list(prefix: string, options?: ListOptions): AsyncIterable<ObjectMeta[]>;
  /** Removes the object; deleting a missing object is not an error. */
  delete(key: string, options?: OpOptions): Promise<void>;
  close(): Promise<void>;
}
