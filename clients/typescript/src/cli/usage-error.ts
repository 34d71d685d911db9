/** A command used wrongly (a flag, a file): its message says what to do instead. */
export class UsageError extends Error {
  override name = 'UsageError';
}
