/**
 * The wire types of the Sluice API, generated from its OpenAPI document
 * (functions/openapi/) by openapi-typescript: `npm run generate:client-types`. Not edited by hand.
 */
export type paths = {
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Liveness
     * @description No token needed.
     */
    get: operations['health'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The process's Prometheus registry
     * @description Scope: `read`.
     */
    get: operations['metrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/openapi.json': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * This document
     * @description No token needed.
     */
    get: operations['openapi'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/docs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A reference page of this document
     * @description No token needed.
     */
    get: operations['reference'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List tables, 256 at most a page
     * @description Scope: `read`.
     */
    get: operations['listTables'];
    put?: never;
    /**
     * Create a table
     * @description Scope: `write`.
     */
    post: operations['createTable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Describe a table
     * @description Scope: `read`.
     */
    get: operations['describeTable'];
    put?: never;
    post?: never;
    /**
     * Drop a table: 404 at once for reads and writes, data removed after the GC grace
     * @description Scope: `admin`.
     */
    delete: operations['dropTable'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/columns': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Add nullable columns, widen int32 → int64 or float32 → float64, or make a column nullable; from the answer on, writes that need the change are taken in every process, and older rows read under it
     * @description Scope: `admin`.
     */
    post: operations['addColumns'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/indexes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Declare an index; an optimize in the table's merge lane builds it once the base has rows enough, and every optimize keeps it up to date
     * @description Scope: `admin`.
     */
    post: operations['declareIndex'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/rows': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Point lookup (`key`) or a scan page (`limit`, `after`, a key range `from`..`to`): pending rows in primary-key order, then the base in its storage order
     * @description Scope: `read`.
     */
    get: operations['readRows'];
    put?: never;
    /**
     * Upsert rows; 200 once every row is durable
     * @description Scope: `write`.
     */
    post: operations['upsertRows'];
    /**
     * Delete rows by primary key; same ack rule as an upsert
     * @description Scope: `write`.
     */
    delete: operations['deleteRows'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/rows/lookup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Look up several keys at once (up to 1000)
     * @description Scope: `read`.
     */
    post: operations['lookupRows'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/search': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Nearest neighbours of a vector, a full-text search, or the rows a Lance SQL filter passes, over the base and every pending row: the newest value per key, no deleted row
     * @description Scope: `read`.
     */
    post: operations['search'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/rows/count': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The live row count: base and pending rows, deletes applied
     * @description Scope: `read`.
     */
    get: operations['countRows'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/shards/{s}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Shard stats, readable whether the shard is poisoned or not
     * @description Scope: `read`.
     */
    get: operations['shardStats'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/shards/{s}/reopen': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Clear the poison of a shard and flush again from the manifest
     * @description Scope: `admin`.
     */
    post: operations['reopenShard'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/merge': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Merge now; never gated by a cooldown
     * @description Scope: `admin`.
     */
    post: operations['mergeTable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/merge/{jobId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The state and progress of a merge job
     * @description Scope: `admin`.
     */
    get: operations['mergeStatus'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/optimize': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Optimize the base now (Lance's compaction, index update and version cleanup), after merging what is pending; runs in the table's merge lane and is never gated by a cooldown
     * @description Scope: `admin`.
     */
    post: operations['optimizeTable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/optimize/{jobId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The state and result of an optimize job
     * @description Scope: `admin`.
     */
    get: operations['optimizeStatus'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tables/{t}/drain': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Stop (`true`) or resume (`false`) new merges and optimizes of the table
     * @description Scope: `admin`.
     */
    post: operations['drainTable'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dead-letters': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Dead jobs, oldest first, 256 at most a page; reading changes nothing
     * @description Scope: `admin`.
     */
    get: operations['listDeadLetters'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dead-letters/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One dead job
     * @description Scope: `admin`.
     */
    get: operations['getDeadLetter'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/dead-letters/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Requeue a dead job; refused while its shard is poisoned
     * @description Scope: `admin`.
     */
    post: operations['retryDeadLetter'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/scheduler/cooldowns': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Targets the scheduler skips after repeated failures
     * @description Scope: `admin`.
     */
    get: operations['listCooldowns'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/scheduler/merge-failures': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The merge failure ledger, by table name
     * @description Scope: `admin`.
     */
    get: operations['listMergeFailures'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
};
export type webhooks = Record<string, never>;
export type components = {
  schemas: {
    Health: {
      /** @enum {string} */
      status: 'ok';
    };
    Error: {
      error: {
        code: components['schemas']['ErrorCode'];
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
    };
    /** @enum {string} */
    ErrorCode:
      | 'INVALID_REQUEST'
      | 'INVALID_SCHEMA'
      | 'INVALID_SCHEMA_CHANGE'
      | 'INVALID_ROWS'
      | 'INVALID_TABLE_NAME'
      | 'INVALID_KEY'
      | 'INVALID_CURSOR'
      | 'INVALID_CONFIG'
      | 'STORE_UNSAFE'
      | 'INVALID_SETTINGS'
      | 'INVALID_INDEX'
      | 'INVALID_SEARCH'
      | 'INVALID_FILTER'
      | 'UNAUTHORIZED'
      | 'FORBIDDEN'
      | 'TABLE_NOT_FOUND'
      | 'KEY_NOT_FOUND'
      | 'TABLE_HAS_NO_KEY'
      | 'JOB_NOT_FOUND'
      | 'SHARD_NOT_FOUND'
      | 'ROUTE_NOT_FOUND'
      | 'TABLE_EXISTS'
      | 'INDEX_EXISTS'
      | 'IDEMPOTENCY_CONFLICT'
      | 'IDEMPOTENCY_UNSETTLED'
      | 'INDEX_NOT_BUILT'
      | 'SHARD_NOT_POISONED'
      | 'SHARD_STILL_POISONED'
      | 'TABLE_DRAINED'
      | 'PRECONDITION_FAILED'
      | 'GENERATION_GAP'
      | 'FENCED'
      | 'BASE_FORMAT_OUTDATED'
      | 'CURSOR_EXPIRED'
      | 'PAYLOAD_TOO_LARGE'
      | 'TOO_MANY_ROWS'
      | 'UNSUPPORTED_MEDIA_TYPE'
      | 'BACKPRESSURE'
      | 'INTERNAL'
      | 'STORE_CONFLICT'
      | 'STORE_UNAVAILABLE'
      | 'REDIS_UNAVAILABLE'
      | 'SHARD_POISONED'
      | 'WRITE_ABANDONED'
      | 'READ_AMPLIFICATION'
      | 'SNAPSHOT_MOVED'
      | 'ABORTED'
      | 'DATA_MISSING'
      | 'DATA_CORRUPT'
      | 'SCHEMA_OUTDATED'
      | 'SCHEMA_CHANGE_PENDING'
      | 'TIMEOUT';
    TableDescription: {
      formatVersion: number;
      name: components['schemas']['TableName'];
      schema: {
        fields: {
          name: string;
          type: string;
          nullable: boolean;
        }[];
      };
      /** @description 1 as created; one more with each change of the columns */
      schemaVersion: number;
      schemaHistory: components['schemas']['SchemaChangeRecord'][];
      primaryKey: string[];
      shards: number;
      settings: components['schemas']['TableSettings'];
      /** Format: date-time */
      createdAt: string;
      /** @description Every declared index; stats.base.indexes says how many rows each covers */
      indexes: components['schemas']['IndexDeclaration'][];
      retention: components['schemas']['Retention'];
      drain: boolean;
      stats: components['schemas']['TableStats'];
    };
    /** @example events */
    TableName: string;
    SchemaChangeRecord: {
      schemaVersion: number;
      /** Format: date-time */
      at: string;
      change: {
        add: {
          name: string;
          type: string;
          nullable: boolean;
          default?: unknown;
        }[];
        alter?: {
          name: string;
          type: string;
          nullable: boolean;
          was: {
            type: string;
            nullable: boolean;
          };
        }[];
      };
    };
    TableSettings: {
      mergeAfterGenerations: number;
      mergeAfterSeconds: number;
      maxGenerationsPerMerge: number;
      maxRowsPerMerge: number;
      maxBytesPerMerge: number;
      sealDelayMs: number;
      maxGenerationBytes: number;
      maxGenerationRows: number;
      optimizeAfterMerges: number;
      optimizeAfterUnindexedRows: number;
      optimizeAfterSmallFragments: number;
      retentionBatchRows: number;
    };
    IndexDeclaration: {
      column: string;
      /**
       * @description btree or bitmap on a scalar column, ivf_pq or ivf_hnsw_sq on a vector column, fts (full text) on a utf8 column
       * @enum {string}
       */
      type: 'btree' | 'bitmap' | 'ivf_pq' | 'ivf_hnsw_sq' | 'fts';
      /**
       * @description Vector indexes only; l2 when absent
       * @enum {string}
       */
      metric?: 'l2' | 'cosine' | 'dot';
      params?: {
        numPartitions?: number;
        numSubVectors?: number;
      };
    };
    /** @description Rows whose column (a timestamp, not nullable, not a key column) is older than maxAgeSeconds are never read, and the merge lane deletes them from the base */
    Retention: {
      column: string;
      maxAgeSeconds: number;
    } | null;
    TableStats: {
      /** @description Version of Sluice's record of the base */
      baseVersion: number;
      /** @description The Lance version of the base dataset that record names; null before the first merge */
      baseLanceVersion: number | null;
      /** @description Live rows of the base dataset alone (each key once, deleted keys not at all); GET …/rows/count counts pending rows too */
      baseRows: number;
      pendingGenerations: number;
      poisonedShards: number;
      sealedGenerations: number;
      committedGenerations: number;
      sealedRows: number;
      committedRows: number;
      unsealedEntries: number;
      unsealedBytes: number;
      /** @description Rows of the committed generations not yet merged; 0 with no pending generation: the base has caught up */
      pendingRows: number;
      base: components['schemas']['BaseHealth'];
    };
    /** @description The base's fragments and each index's coverage */
    BaseHealth: {
      /** @description The latest Lance version, measured */
      version: number;
      /** @description Lance versions the base keeps */
      versions: number;
      rows: number;
      fragments: number;
      /** @description Fragments an optimize would compact */
      smallFragments: number;
      indexes: {
        name: string;
        columns: string[];
        type: string;
        indexedRows: number;
        unindexedRows: number;
      }[];
    } | null;
    CreateTable: {
      name: components['schemas']['TableName'];
      schema: {
        fields: components['schemas']['Field'][];
      };
      /** @description Key columns: int32, int64 or utf8. Omitted or [] makes an append-only table: every row is kept, none is looked up or deleted by key. */
      primaryKey?: string[];
      /** @description Defaults to 1; fixed for the table's life. A shard is one WAL and one flush lane: more shards flush in parallel, and a write makes one WAL entry per shard its rows touch, unless walLane is "table". */
      shards?: number;
      settings?: {
        mergeAfterGenerations?: number;
        mergeAfterSeconds?: number;
        maxGenerationsPerMerge?: number;
        maxRowsPerMerge?: number;
        maxBytesPerMerge?: number;
        sealDelayMs?: number;
        maxGenerationBytes?: number;
        maxGenerationRows?: number;
        optimizeAfterMerges?: number;
        optimizeAfterUnindexedRows?: number;
        optimizeAfterSmallFragments?: number;
        retentionBatchRows?: number;
      };
      /** @description Indexes to build on the base, each an IndexDeclaration */
      indexes?: unknown[];
      retention?: components['schemas']['Retention'];
      /**
       * @description Where writes go; fixed for the table's life. "table": one WAL entry per write request whatever shards its rows touch, all of them or none applied (one PUT, one Redis call); "shard" (the default): one entry per shard the rows touch. Tables with a primary key only.
       * @enum {string}
       */
      walLane?: 'shard' | 'table';
    };
    Field: {
      /** @example id */
      name: string;
      /**
       * @description int32 int64 float32 float64 bool utf8 binary timestamp[ms] timestamp[us] vector[float32, DIM]
       * @example int64
       */
      type: string;
      /** @description Defaults to false for key columns, true otherwise. */
      nullable?: boolean;
    };
    TablePage: {
      items: components['schemas']['TableDescription'][];
      /** @description Opaque cursor of the next page; null on the last. */
      next: string | null;
    };
    ColumnsAdded: {
      schemaVersion: number;
      schema: {
        fields: {
          name: string;
          type: string;
          nullable: boolean;
          default?: unknown;
        }[];
      };
      /** @description The merge-lane job that gives the base the columns (null when nothing changed, or on a drained table) */
      jobId: string | null;
    };
    /** @description Columns to add, each nullable (rows written before read null) or with a default (they read it), and columns to widen (int32 → int64, float32 → float64) or make nullable. Narrowing, renames and drops are refused. */
    SchemaChange: {
      add?: {
        name: string;
        /** @description A column type, as in a create */
        type: string;
        /** @description true unless a default is given */
        nullable?: boolean;
        /** @description A number, bool or utf8 column may have one: writes leaving the column out get it, and every row stored before reads it */
        default?: unknown;
      }[];
      alter?: {
        name: string;
        /** @description int32 → int64 or float32 → float64 */
        type?: string;
        /** @enum {boolean} */
        nullable?: true;
      }[];
    };
    DeclaredIndex: {
      index: components['schemas']['IndexDeclaration'];
      /** @description The merge-lane job that builds it (null on a drained table: it is built once undrained) */
      jobId: string | null;
    };
    DroppedTable: {
      name: components['schemas']['TableName'];
      /** Format: date-time */
      droppedAt: string;
      /**
       * Format: date-time
       * @description When the data may be deleted: the drop plus the GC grace.
       */
      purgeAfter: string;
    };
    Ack: {
      acked: number;
      shards: {
        shard: number;
        seq: number;
      }[];
    };
    RowsBody: {
      rows: components['schemas']['Row'][];
    };
    /** @description One row, keyed by column; values in the JSON forms of the column types. */
    Row: {
      [key: string]: unknown;
    };
    KeysBody: {
      keys: components['schemas']['Key'][];
    };
    /** @description A one-column primary key value, or an array of values in primary-key order. */
    Key: unknown;
    ScanPage: {
      rows: components['schemas']['Row'][];
      /** @description Opaque cursor of the next page; null on the last. */
      next: string | null;
    };
    Lookup: {
      row: components['schemas']['Row'];
    };
    LookupMany: {
      /** @description The rows found, in the order their keys were asked, each once. */
      rows: components['schemas']['Row'][];
      /** @description The keys asked for with no live row, as given. */
      missing: components['schemas']['Key'][];
    };
    SearchResult: {
      /** @description Best first, at most k, the newest value per key and no deleted row; each with `_distance` (vector: smaller is nearer) or `_score` (text: larger is better) */
      rows: components['schemas']['Row'][];
      /** @description A search by filter alone: the cursor of the next page (pass it as `after` with the same filter); absent on the last page */
      next?: string;
    };
    SearchBody: {
      /** @description Nearest neighbours of this vector */
      vector?: number[];
      /** @description The vector column; the table's only one when absent */
      column?: string;
      /**
       * @description l2, cosine or dot; the declared vector index's metric, else l2, when absent
       * @enum {string}
       */
      metric?: 'l2' | 'cosine' | 'dot';
      /** @description IVF partitions to probe on an indexed base */
      nprobes?: number;
      /** @description Re-rank this many times k by exact distance */
      refineFactor?: number;
      /** @description Full-text search for these words */
      text?: string;
      /** @description The column with a declared fts index; the only one when absent */
      textColumn?: string;
      /** @description Rows to answer, 1 to 1000; 10 when absent */
      k?: number;
      /** @description A Lance SQL filter, e.g. category = 'a' AND score > 0.5 */
      filter?: string;
      /** @description The columns to answer, in this order */
      columns?: string[];
      /** @description Answer `_distance` (vector) or `_score` (text) with each row; true when absent */
      withDistance?: boolean;
    };
    RowCount: {
      table: components['schemas']['TableName'];
      /** @description Live rows: base and pending, each key once, deletes applied. */
      rows: number;
      /** @description Live rows of the base dataset alone. */
      baseRows: number;
      /** @description Distinct keys written or deleted since the base version (not yet merged). */
      pendingKeys: number;
    };
    ShardStats: {
      table: components['schemas']['TableName'];
      shard: number;
      frontier: number;
      walCursor: number;
      sealedThrough: number;
      allocatedThrough: number | null;
      currentGeneration: number;
      sealed: {
        generation: number;
        walFrom: number;
        walTo: number;
        walRows: number;
        walBytes: number;
        /** Format: date-time */
        sealedAt: string;
      }[];
      committed: {
        generation: number;
        walFrom: number;
        walTo: number;
        walRows: number;
        walBytes: number;
        /** Format: date-time */
        sealedAt: string;
        path: string;
        rows: number;
        bytes: number;
        /** Format: date-time */
        committedAt: string;
      }[];
      mergedThrough: number;
      pendingGenerations: number;
      unsealedEntries: number;
      unsealedBytes: number;
      manifestVersion: number;
      poison: components['schemas']['Poison'];
    };
    Poison: {
      code: components['schemas']['ErrorCode'];
      generation: number | null;
      cause: string;
      /** Format: date-time */
      at: string;
      jobId?: string;
    } | null;
    MergeRequested: {
      jobId: string;
    };
    MergeStatus: {
      id: string;
      table: components['schemas']['TableName'];
      /**
       * @description The job state: waiting, delayed, active, completed or failed.
       * @example active
       */
      state: string;
      progress: components['schemas']['MergeProgress'];
      result: components['schemas']['MergeLaneResult'];
      failedReason: string | null;
      /** Format: date-time */
      createdAt: string | null;
      /** Format: date-time */
      finishedAt: string | null;
    };
    MergeProgress: {
      rowsDone: number;
      rowsTotal: number;
      bytesDone: number;
      bytesTotal: number;
    } | null;
    MergeLaneResult: {
      /** @enum {string} */
      status: 'done' | 'drained' | 'dropped';
      merged?: {
        generations: number;
        rows: number;
        lanceVersion: number | null;
      };
      pending?: components['schemas']['Backlog'];
      /** @description Rows past retention this job deleted from the base, and below which time none is left; null for a table without retention */
      retention?: {
        deleted: number;
        /** @description ms since the epoch */
        expiredBefore: number | null;
        lanceVersion: number | null;
      } | null;
      optimize?: components['schemas']['LaneOptimize'];
    } | null;
    /** @description Committed generations still pending after this merge; 0 generations: caught up */
    Backlog: {
      generations: number;
      rows: number;
      /** @description ms since the epoch */
      oldestCommittedAt: number | null;
    };
    /** @description The optimize this job ran after its merge and why: its recorded Lance version (null: a merge preempted it every try), or why it was skipped, or its error. */
    LaneOptimize: {
      /** @enum {string} */
      reason: 'requested' | 'indexes' | 'merges' | 'small-fragments' | 'unindexed-rows' | 'caught-up';
      lanceVersion?: number | null;
      conflicts?: number;
      /** @enum {string} */
      skipped?: 'cooldown' | 'drained';
      error?: {
        code: string;
        message: string;
      };
    } | null;
    DrainState: {
      table: components['schemas']['TableName'];
      drain: boolean;
    };
    DrainBody: {
      drain: boolean;
    };
    DeadLetterPage: {
      items: components['schemas']['DeadLetter'][];
      /** @description Opaque cursor of the next page; null on the last. */
      next: string | null;
    };
    DeadLetter: {
      id: string;
      queue: string;
      target: string;
      jobId: string;
      jobName: string;
      data?: unknown;
      error: {
        code: string;
        message: string;
        details: {
          [key: string]: unknown;
        };
      };
      stack: string | null;
      attempts: number;
      /** Format: date-time */
      enqueuedAt: string;
      /** Format: date-time */
      lastStartedAt: string | null;
      /** Format: date-time */
      failedAt: string;
    };
    DeadLetterRetry: {
      id: string;
      queue: string;
      target: string;
      /** @enum {string} */
      status: 'requeued';
    };
    CooldownPage: {
      items: {
        /** @example merge */
        kind: string;
        target: string;
        failures: number;
        /** Format: date-time */
        until: string;
        lastError: {
          code: string;
          message: string;
        };
        /** @enum {string} */
        class: 'retryable' | 'deadline' | 'data-or-configuration';
        needsAttention: boolean;
      }[];
      /** @description Opaque cursor of the next page; null on the last. */
      next: string | null;
    };
    MergeFailurePage: {
      items: {
        /** @example merge */
        kind: string;
        target: string;
        failures: number;
        /** @enum {string} */
        class: 'retryable' | 'deadline' | 'data-or-configuration';
        lastError: {
          code: string;
          message: string;
        };
        /** Format: date-time */
        firstFailureAt: string;
        /** Format: date-time */
        lastFailureAt: string;
        /** Format: date-time */
        cooldownUntil: string | null;
        needsAttention: boolean;
      }[];
      /** @description Opaque cursor of the next page; null on the last. */
      next: string | null;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
  health: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The process answers */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Health'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  metrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Prometheus text format */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  openapi: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OpenAPI 3.1 */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  reference: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description HTML */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/html': string;
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listTables: {
    parameters: {
      query?: {
        /** @description Items per page: 1 to 256, 256 when absent. */
        limit?: string;
        /** @description The previous page's `next`. */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of descriptions */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TablePage'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_CURSOR */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createTable: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CreateTable'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          /** @description The table */
          Location?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TableDescription'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_SCHEMA, INVALID_TABLE_NAME, INVALID_SETTINGS, INVALID_INDEX */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: TABLE_EXISTS, INDEX_EXISTS */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too large: PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unsupported Content-Type: UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, STORE_CONFLICT */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  describeTable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The description */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TableDescription'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  dropTable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The drop, and when its data may be deleted */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DroppedTable'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, STORE_CONFLICT */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  addColumns: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SchemaChange'];
      };
    };
    responses: {
      /** @description The schema now in force, and the merge-lane job that gives the base the columns */
      200: {
        headers: {
          /** @description The status of that job */
          Location?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ColumnsAdded'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME, INVALID_SCHEMA, INVALID_SCHEMA_CHANGE */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too large: PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unsupported Content-Type: UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, STORE_CONFLICT */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  declareIndex: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['IndexDeclaration'];
      };
    };
    responses: {
      /** @description The declaration, and the job that builds it */
      202: {
        headers: {
          /** @description The status of that job */
          Location?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeclaredIndex'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME, INVALID_INDEX */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: INDEX_EXISTS */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too large: PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unsupported Content-Type: UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, STORE_CONFLICT */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  readRows: {
    parameters: {
      query?: {
        /** @description The columns to answer, comma-separated, in that order; every column when absent. */
        columns?: string;
        /** @description Rows per page: 1 to 1000 in JSON, to 10000 in Arrow; 100 when absent. */
        limit?: string;
        /** @description The previous page's `next`. */
        after?: string;
        /** @description A point lookup: the key as JSON (a number, a quoted string, or an array for a composite key); goes without limit, after, from and to. Several keys: POST …/rows/lookup. */
        key?: string;
        /** @description A scan from this key on (inclusive), as JSON like `key`. */
        from?: string;
        /** @description A scan up to this key (exclusive), as JSON like `key`. */
        to?: string;
      };
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A lookup answers `{row}`, a scan `{rows, next}`; with `Accept: application/vnd.apache.arrow.stream` an Arrow stream, the next cursor in `Sluice-Next` (absent on the last page) */
      200: {
        headers: {
          /** @description The next scan cursor (Arrow answers) */
          'Sluice-Next'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ScanPage'] | components['schemas']['Lookup'];
          'application/vnd.apache.arrow.stream': string;
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME, INVALID_KEY, INVALID_CURSOR */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND, KEY_NOT_FOUND, TABLE_HAS_NO_KEY */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Gone: start again: CURSOR_EXPIRED */
      410: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL, DATA_MISSING, DATA_CORRUPT */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, SHARD_POISONED, READ_AMPLIFICATION, ABORTED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  upsertRows: {
    parameters: {
      query?: never;
      header?: {
        /** @description A retry of the same request with this key answers the first ack and writes nothing. */
        'idempotency-key'?: string;
      };
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['RowsBody'];
        'application/vnd.apache.arrow.stream': string;
      };
    };
    responses: {
      /** @description Acked: durable in the WAL */
      200: {
        headers: {
          /** @description `true` when this is the first ack, replayed */
          'Idempotent-Replayed'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Ack'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME, INVALID_ROWS */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: IDEMPOTENCY_CONFLICT, IDEMPOTENCY_UNSETTLED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too large: PAYLOAD_TOO_LARGE, TOO_MANY_ROWS */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unsupported Content-Type: UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Backpressure: retry after `Retry-After` seconds: BACKPRESSURE */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, SHARD_POISONED, WRITE_ABANDONED, STORE_CONFLICT, ABORTED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteRows: {
    parameters: {
      query?: never;
      header?: {
        /** @description A retry of the same request with this key answers the first ack and writes nothing. */
        'idempotency-key'?: string;
      };
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['KeysBody'];
      };
    };
    responses: {
      /** @description Acked: durable in the WAL */
      200: {
        headers: {
          /** @description `true` when this is the first ack, replayed */
          'Idempotent-Replayed'?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Ack'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME, INVALID_KEY */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND, TABLE_HAS_NO_KEY */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: IDEMPOTENCY_CONFLICT, IDEMPOTENCY_UNSETTLED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too large: PAYLOAD_TOO_LARGE, TOO_MANY_ROWS */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unsupported Content-Type: UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Backpressure: retry after `Retry-After` seconds: BACKPRESSURE */
      429: {
        headers: {
          /** @description Seconds to wait before retrying */
          'Retry-After'?: number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, SHARD_POISONED, WRITE_ABANDONED, STORE_CONFLICT, ABORTED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  lookupRows: {
    parameters: {
      query?: {
        /** @description The columns to answer, comma-separated, in that order; every column when absent. */
        columns?: string;
      };
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['KeysBody'];
      };
    };
    responses: {
      /** @description The rows found and the keys missing; with `Accept: application/vnd.apache.arrow.stream` the rows as an Arrow stream whose schema metadata `sluice.missing` holds the missing keys as JSON */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['LookupMany'];
          'application/vnd.apache.arrow.stream': string;
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME, INVALID_KEY */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND, TABLE_HAS_NO_KEY */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too large: PAYLOAD_TOO_LARGE, TOO_MANY_ROWS */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unsupported Content-Type: UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL, DATA_MISSING, DATA_CORRUPT */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, SHARD_POISONED, READ_AMPLIFICATION, ABORTED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  search: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SearchBody'];
      };
    };
    responses: {
      /** @description The rows, best first; with `Accept: application/vnd.apache.arrow.stream` an Arrow stream with `_distance` or `_score` as its last column */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SearchResult'];
          'application/vnd.apache.arrow.stream': string;
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME, INVALID_SEARCH, INVALID_FILTER */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: INDEX_NOT_BUILT */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too large: PAYLOAD_TOO_LARGE */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unsupported Content-Type: UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL, DATA_MISSING, DATA_CORRUPT */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, SHARD_POISONED, READ_AMPLIFICATION, ABORTED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  countRows: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The live row count */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RowCount'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL, DATA_MISSING, DATA_CORRUPT */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, SHARD_POISONED, READ_AMPLIFICATION, ABORTED */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  shardStats: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
        s: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The stats */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ShardStats'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND, SHARD_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  reopenShard: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
        s: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The shard stats after the reopen */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ShardStats'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND, SHARD_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: SHARD_NOT_POISONED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, STORE_CONFLICT */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  mergeTable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The merge job that will run it */
      202: {
        headers: {
          /** @description Its status */
          Location?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MergeRequested'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: TABLE_DRAINED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  mergeStatus: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The merge job */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MergeStatus'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND, JOB_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  optimizeTable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The merge-lane job that will run it */
      202: {
        headers: {
          /** @description Its status */
          Location?: string;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MergeRequested'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: TABLE_DRAINED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  optimizeStatus: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
        jobId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The merge-lane job */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MergeStatus'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND, JOB_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  drainTable: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        t: components['schemas']['TableName'];
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['DrainBody'];
      };
    };
    responses: {
      /** @description The drain flag */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DrainState'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_TABLE_NAME */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: TABLE_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unsupported Content-Type: UNSUPPORTED_MEDIA_TYPE */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE, STORE_CONFLICT */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listDeadLetters: {
    parameters: {
      query?: {
        /** @description Items per page: 1 to 256, 256 when absent. */
        limit?: string;
        /** @description The previous page's `next`. */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of dead letters */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeadLetterPage'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_CURSOR */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getDeadLetter: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The dead letter */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeadLetter'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: JOB_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  retryDeadLetter: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Requeued */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['DeadLetterRetry'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not found: JOB_NOT_FOUND */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflict: SHARD_STILL_POISONED */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCooldowns: {
    parameters: {
      query?: {
        /** @description Items per page: 1 to 256, 256 when absent. */
        limit?: string;
        /** @description The previous page's `next`. */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of cooldowns */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CooldownPage'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_CURSOR */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listMergeFailures: {
    parameters: {
      query?: {
        /** @description Items per page: 1 to 256, 256 when absent. */
        limit?: string;
        /** @description The previous page's `next`. */
        after?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of failure records */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MergeFailurePage'];
        };
      };
      /** @description Bad input; nothing was written: INVALID_REQUEST, INVALID_CURSOR */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No, malformed or unknown bearer token: UNAUTHORIZED */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token lacks the scope of the route: FORBIDDEN */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Internal failure: INTERNAL */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unavailable: retry, or see the code: STORE_UNAVAILABLE, REDIS_UNAVAILABLE */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The request ran past the deadline; a write may have landed, retry it: TIMEOUT */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
