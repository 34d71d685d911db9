export * as lancedb from '@lancedb/lancedb';
export * as arrow from 'apache-arrow';
