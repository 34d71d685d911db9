/** The parts of s3rver 3.7 (which ships no types) that the loopback test server uses. */
declare module 's3rver' {
  import type { IncomingMessage, Server } from 'node:http';
  import type { AddressInfo } from 'node:net';
  import type { Readable } from 'node:stream';

  /** The subset of a Koa context the test server's middleware touches. */
  export interface KoaContext {
    method: string;
    path: string;
    query: Record<string, string | string[] | undefined>;
    req: IncomingMessage;
    status: number;
    type: string;
    body: unknown;
    get(header: string): string;
  }

  export type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;

  /** Intrinsic metadata as s3rver stores it: `etag` is quoted, `content-length` a number. */
  export type ObjectMetadata = Record<string, string | number>;

  export interface S3rverObject {
    bucket: string;
    key: string;
    content: Buffer | Readable;
    metadata: Record<string, string>;
  }

  export interface FilesystemStore {
    getBucket(bucket: string): Promise<object | null>;
    getBucketPath(bucket: string): string;
    getResourcePath(bucket: string, key: string, resource: string): string;
    getMetadata(bucket: string, key: string): Promise<ObjectMetadata>;
    putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
    deleteObject(bucket: string, key: string): Promise<void>;
  }

  export interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    configureBuckets?: Array<{ name: string }>;
  }

  export default class S3rver {
    constructor(options: S3rverOptions);
    readonly store: FilesystemStore;
    /** Koa's middleware stack; composed when the server starts listening. */
    readonly middleware: KoaMiddleware[];
    readonly httpServer: Server;
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
  }
}
