/**
 * What kind of commit made each version of a base dataset, read from the dataset's own
 * files: a version's manifest names its transaction file, and the transaction's operation
 * says what the commit did. Sluice needs this because a version it did not record may be a
 * zombie merge's rows or merely an index or a compaction (docs/base-table.md, "Commits
 * Sluice did not record"), and LanceDB's API does not say which.
 *
 * The layout is Lance's table format: `_versions/{u64::MAX - v}.manifest` (or
 * `{v}.manifest` in the older naming), whose 16-byte footer gives the position of a
 * length-prefixed `Manifest` message; field 12 of it is the transaction file's name under
 * `_transactions/`, whose `Transaction` message carries its operation as a field numbered
 * from 100 (protos/transaction.proto in Lance).
 */
import { SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import { baseDatasetKey } from '../table/paths.ts';

/** Lance refused a commit for one that landed meanwhile ("Retryable commit conflict", "Incompatible transaction"). */
export function isCommitConflict(err: unknown): boolean {
  return err instanceof Error && /commit conflict|incompatible transaction/i.test(err.message);
}

/**
 * `layout`: the rows and the schema are as before (an index built or updated, fragments
 * compacted, fragment ids reserved, metadata set). `schema`: columns added, dropped or
 * altered. `rows`: anything that may change a row, and anything not recognised.
 */
export type CommitEffect = 'layout' | 'schema' | 'rows';

export interface LanceCommit {
  version: number;
  /** Lance's name of the operation, or `unknown`. */
  operation: string;
  effect: CommitEffect;
}

const OPERATIONS: Record<number, [string, CommitEffect]> = {
  100: ['Append', 'rows'],
  101: ['Delete', 'rows'],
  102: ['Overwrite', 'rows'],
  103: ['CreateIndex', 'layout'],
  104: ['Rewrite', 'layout'],
  105: ['Merge', 'schema'],
  106: ['Restore', 'rows'],
  107: ['ReserveFragments', 'layout'],
  108: ['Update', 'rows'],
  109: ['Project', 'schema'],
  110: ['UpdateConfig', 'layout'],
  111: ['DataReplacement', 'rows'],
};

const MANIFEST_FOOTER_BYTES = 16;
const TRANSACTION_FILE_FIELD = 12;
const FIRST_OPERATION_FIELD = 100;
const U64_MAX = (1n << 64n) - 1n;

/** The commits that made versions `after + 1` through `through`, oldest first. */
export async function commitsBetween(
  store: ObjectStore,
  table: string,
  after: number,
  through: number,
  signal?: AbortSignal,
): Promise<LanceCommit[]> {
  const versions = Array.from({ length: Math.max(0, through - after) }, (_, i) => after + 1 + i);
  return Promise.all(versions.map((version) => commitOf(store, table, version, signal)));
}

async function commitOf(
  store: ObjectStore,
  table: string,
  version: number,
  signal?: AbortSignal,
): Promise<LanceCommit> {
  const manifest = await manifestOf(store, table, version, signal);
  const txn = stringField(manifestMessage(manifest), TRANSACTION_FILE_FIELD);
  if (txn === null) return { version, operation: 'unknown', effect: 'rows' };
  const object = await store.get(baseDatasetKey(table, `_transactions/${txn}`), { signal });
  if (!object) return { version, operation: 'unknown', effect: 'rows' };
  const field = fields(object.body, 0, object.body.length).find((f) => f.number >= FIRST_OPERATION_FIELD);
  const [operation, effect] = (field && OPERATIONS[field.number]) ?? ['unknown', 'rows'];
  return { version, operation, effect };
}

async function manifestOf(store: ObjectStore, table: string, version: number, signal?: AbortSignal) {
  const named = [String(U64_MAX - BigInt(version)).padStart(20, '0'), String(version)];
  for (const name of named) {
    const object = await store.get(baseDatasetKey(table, `_versions/${name}.manifest`), { signal });
    if (object) return object.body;
  }
  throw new SluiceError('DATA_MISSING', `version ${version} of the base of ${table} has no manifest`, {
    table,
    version,
  });
}

function manifestMessage(file: Uint8Array): { body: Uint8Array; start: number; end: number } {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const at = Number(view.getBigUint64(file.length - MANIFEST_FOOTER_BYTES, true));
  const length = view.getUint32(at, true);
  return { body: file, start: at + 4, end: at + 4 + length };
}

function stringField(message: { body: Uint8Array; start: number; end: number }, number: number) {
  const field = fields(message.body, message.start, message.end).find((f) => f.number === number);
  return field?.bytes ? Buffer.from(field.bytes).toString('utf8') : null;
}

interface Field {
  number: number;
  bytes?: Uint8Array;
}

/** The top-level fields of a protobuf message, with the bytes of length-delimited ones. */
function fields(body: Uint8Array, start: number, end: number): Field[] {
  const out: Field[] = [];
  let at = start;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      const byte = body[at++];
      if (byte === undefined) throw corrupt();
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < end) {
    const tag = varint();
    const number = Math.floor(tag / 8);
    switch (tag % 8) {
      case 0:
        varint();
        out.push({ number });
        break;
      case 1:
        at += 8;
        out.push({ number });
        break;
      case 2: {
        const length = varint();
        out.push({ number, bytes: body.subarray(at, at + length) });
        at += length;
        break;
      }
      case 5:
        at += 4;
        out.push({ number });
        break;
      default:
        throw corrupt();
    }
  }
  return out;
}

function corrupt(): SluiceError {
  return new SluiceError('DATA_CORRUPT', 'a Lance manifest or transaction file could not be parsed');
}
