/** The numbers Redis answered for `seqs`, in the same order; a seq it has none for is left out. */
export function bySeq(seqs: number[], values: Array<string | null | undefined>): Map<number, number> {
  const found = new Map<number, number>();
  seqs.forEach((seq, i) => {
    const value = values[i];
    if (value !== null && value !== undefined) found.set(seq, Number(value));
  });
  return found;
}

/**
 * Seqs per command of `askInChunks`: a lane behind a lagging shard can hold hundreds of
 * thousands, past what one command's arguments (and one call's stack) take.
 */
const SEQS_PER_COMMAND = 10_000;

/** One Redis answer per seq, asked `SEQS_PER_COMMAND` at a time, in order. */
export async function askInChunks<T>(
  seqs: readonly number[],
  ask: (chunk: string[]) => Promise<T[]>,
): Promise<T[]> {
  const answers: T[] = [];
  for (let at = 0; at < seqs.length; at += SEQS_PER_COMMAND) {
    const chunk = await ask(seqs.slice(at, at + SEQS_PER_COMMAND).map(String));
    for (const answer of chunk) answers.push(answer);
  }
  return answers;
}
