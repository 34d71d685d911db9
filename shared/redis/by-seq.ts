/** The numbers Redis answered for `seqs`, in the same order; a seq it has none for is left out. */
export function bySeq(seqs: number[], values: Array<string | null | undefined>): Map<number, number> {
  const found = new Map<number, number>();
  seqs.forEach((seq, i) => {
    const value = values[i];
    if (value !== null && value !== undefined) found.set(seq, Number(value));
  });
  return found;
}
