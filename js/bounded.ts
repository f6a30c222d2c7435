/**
 * Runs `task` over `items` with at most `limit` at once, keeping the order of results. When a
 * task fails, no new one starts, the ones running are waited for (so nothing a failed call
 * started is still open when it returns), and the first failure is thrown.
 */
export async function bounded<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  let failed: { error: unknown } | null = null;
  const worker = async () => {
    while (next < items.length && failed === null) {
      const i = next++;
      try {
        out[i] = await task(items[i]!);
      } catch (error) {
        failed ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker));
  if (failed !== null) throw (failed as { error: unknown }).error;
  return out;
}
