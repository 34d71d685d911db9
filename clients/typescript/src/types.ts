/** Names for the wire types the client speaks; every shape comes from the generated api-types.ts. */
import type { components } from './api-types.ts';

type Schemas = components['schemas'];

export type ApiErrorCode = Schemas['ErrorCode'];
export type CreateTable = Schemas['CreateTable'];
export type Field = Schemas['Field'];
export type TableDescription = Schemas['TableDescription'];
export type TablePage = Schemas['TablePage'];
export type Row = Schemas['Row'];
export type Ack = Schemas['Ack'];
export type ScanPage = Schemas['ScanPage'];
export type LookupMany = Schemas['LookupMany'];
export type SearchBody = Schemas['SearchBody'];
export type SearchResult = Schemas['SearchResult'];
export type RowCount = Schemas['RowCount'];
export type ShardStats = Schemas['ShardStats'];
export type DeadLetter = Schemas['DeadLetter'];
export type DeadLetterPage = Schemas['DeadLetterPage'];
export type DeadLetterRetry = Schemas['DeadLetterRetry'];
export type MergeStatus = Schemas['MergeStatus'];
export type IndexDeclaration = Schemas['IndexDeclaration'];
export type DeclaredIndex = Schemas['DeclaredIndex'];
export type SchemaChange = Schemas['SchemaChange'];
export type ColumnsAdded = Schemas['ColumnsAdded'];
export type DroppedTable = Schemas['DroppedTable'];
export type MergeProgress = Schemas['MergeProgress'];
export type DrainState = Schemas['DrainState'];
export type CooldownPage = Schemas['CooldownPage'];
export type MergeFailurePage = Schemas['MergeFailurePage'];
