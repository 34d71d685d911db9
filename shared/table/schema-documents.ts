/**
 * A table's schema changes, kept as a versioned document beside `table.json`, which stays
 * as created (docs/design.md, "Schema evolution"). Document version n holds the columns of
 * schema version n + 1 and the whole history, so the latest one alone says everything;
 * version 0, never stored, is `table.json`'s own columns (schema version 1).
 */
import { type FieldJSON, parseTableSchema, schemaToJSON } from '../arrow/schema.ts';
import { SluiceError } from '../errors.ts';
import type { ObjectStore } from '../store/object-store.ts';
import {
  type Change,
  type DocumentKind,
  type HintOptions,
  type Versioned,
  VersionedDocuments,
} from '../store/versioned-document.ts';
import { schemaDocumentKey, schemaDocumentPrefix } from './paths.ts';
import { evolveSchema, parseSchemaChange, type SchemaChangeRecord } from './schema-change.ts';
import type { TableDef } from './table-def.ts';

export interface SchemaDocument extends Versioned {
  table: string;
  /** Every column in force, in order. */
  fields: FieldJSON[];
  history: SchemaChangeRecord[];
}

const KIND: DocumentKind<SchemaDocument> = {
  name: 'schema document',
  prefix: schemaDocumentPrefix,
  key: schemaDocumentKey,
  empty: (table) => ({
    table,
    version: 0,
    commitId: '',
    updatedAt: new Date(0).toISOString(),
    fields: [],
    history: [],
  }),
  validate(parsed, version) {
    const doc = parsed as SchemaDocument;
    if (doc.version !== version || !Array.isArray(doc.fields) || !Array.isArray(doc.history)) {
      throw new Error('unexpected format');
    }
    return doc;
  },
};

export class SchemaDocuments {
  private readonly documents: VersionedDocuments<SchemaDocument>;

  constructor(store: ObjectStore, hints: HintOptions) {
    this.documents = new VersionedDocuments(store, KIND, hints);
  }

  /** `def` (as `table.json` holds it) under its latest columns; validated as strictly as a create (I9). */
  async apply(def: TableDef, signal?: AbortSignal): Promise<TableDef> {
    return withDocument(def, await this.documents.read(def.name, signal));
  }

  /**
   * Adds the columns `input` asks for to the latest schema of `def`, in one compare-and-swap;
   * a change that is there already changes nothing. Answers the definition as it now is.
   */
  async change(def: TableDef, input: unknown, now = new Date(), signal?: AbortSignal): Promise<TableDef> {
    const { doc } = await this.documents.update(
      def.name,
      (current): Change<SchemaDocument> => {
        const schema = withDocument(def, current).schema;
        const change = parseSchemaChange(input, schema, def.retention?.column ?? null);
        if (!change) return null;
        const next = evolveSchema(schema, change);
        const { fields } = schemaToJSON(next);
        const record = { schemaVersion: next.version, at: now.toISOString(), change };
        return { ...current, table: def.name, fields, history: [...current.history, record] };
      },
      signal,
    );
    return withDocument(def, doc);
  }
}

function withDocument(def: TableDef, doc: SchemaDocument): TableDef {
  if (doc.version === 0) return def;
  try {
    const schema = parseTableSchema({ fields: doc.fields }, [...def.schema.primaryKey], doc.version + 1);
    return { ...def, schema, schemaHistory: doc.history };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new SluiceError(
      'DATA_CORRUPT',
      `schema document ${doc.version} of table "${def.name}" is invalid: ${reason}`,
      { table: def.name, version: doc.version, reason },
      { cause: err },
    );
  }
}
