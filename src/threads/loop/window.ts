/**
 * The runner's tool-call phase, its concurrency (an answer's calls run
 * through a window of TOOL_CONCURRENCY): run `fn` over `items` with at most
 * `width` in flight; results come back in item order whatever order they
 * finish in (THREADS.md §2 "parallel calls").
 */
export async function mapInWindow<T, R>(
  items: readonly T[],
  width: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
