/**
 * Where a table's base dataset lives: `tables/{table}/base.lance` under the store root, on
 * the local disk or on S3 with the same `SLUICE_S3_*` settings as the rest of Sluice (passed
 * to Lance as storage options). LanceDB names a dataset by its directory and table name, so
 * the connection is `tables/{table}` and the table `base`.
 */
import type { Config } from '../config.ts';
import { parseStoreUrl } from '../store/open-store.ts';
import { tablePrefix } from '../table/paths.ts';

export const BASE_TABLE_NAME = 'base';

export interface DatasetLocation {
  /** The LanceDB connection URI: the table's directory. */
  uri: string;
  storageOptions: Record<string, string>;
}

export function datasetLocation(config: Pick<Config, 'storeUrl' | 's3'>, table: string): DatasetLocation {
  const location = parseStoreUrl(config.storeUrl);
  const dir = tablePrefix(table).replace(/\/$/, '');
  if (location.kind === 'file') return { uri: `${location.root}/${dir}`, storageOptions: {} };
  return {
    uri: `s3://${location.bucket}/${location.prefix}${dir}`,
    storageOptions: lanceS3Options(config.s3),
  };
}

/** LanceDB's storage options for an S3 bucket or an S3-compatible endpoint. */
export function lanceS3Options(
  s3: Pick<Config['s3'], 'endpoint' | 'region' | 'forcePathStyle' | 'accessKeyId' | 'secretAccessKey'>,
): Record<string, string> {
  const options: Record<string, string> = { region: s3.region };
  if (s3.endpoint) {
    options.endpoint = s3.endpoint;
    options.allow_http = String(s3.endpoint.startsWith('http://'));
  }
  options.virtual_hosted_style_request = String(!s3.forcePathStyle);
  if (s3.accessKeyId && s3.secretAccessKey) {
    options.aws_access_key_id = s3.accessKeyId;
    options.aws_secret_access_key = s3.secretAccessKey;
  }
  return options;
}
