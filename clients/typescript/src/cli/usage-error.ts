/** A command used wrongly (a flag, a file, a line of the file): its message says what to do instead. */
export class UsageError extends Error {
  override name = 'UsageError';
}
