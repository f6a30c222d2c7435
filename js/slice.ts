/**
 * One budget for synchronous work per turn of the event loop, shared by every reader in the
 * process: the Node host's synchronous reads and an opened memory's packing and core calls, in
 * one memory or many. Each asks {@link due} between steps and, when the turn has had its
 * {@link SLICE_MS}, awaits {@link pause}; the first step of the next turn starts a new budget.
 *
 * Shared because the holds add up: five memories open on one folder, each taking its own 2.5 ms
 * in the same turn, held the loop for 36–51 ms at 20,000 files.
 */

/**
 * Synchronous work allowed in one turn of the event loop. With a young-generation collection
 * landing in a slice (1–4 ms), 2.5 ms keeps a hold under 10 ms where 4 ms did not always.
 */
export const SLICE_MS = 2.5;

/** When this turn's budget started, or `null` before the first step of a turn. */
let started: number | null = null;

/** Marks the end of the turn that started the budget (runs after everything queued in it). */
function endOfTurn(): void {
  started = null;
}

const schedule: (fn: () => void) => void =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === "function"
    ? (fn) => void (globalThis as unknown as { setImmediate: (fn: () => void) => unknown }).setImmediate(fn)
    : typeof MessageChannel === "function"
      ? (fn) => {
          // browsers have no setImmediate: a message to itself is a task without setTimeout's 4 ms
          const { port1, port2 } = new MessageChannel();
          port1.onmessage = () => {
            port1.close();
            fn();
          };
          port2.postMessage(null);
        }
      : (fn) => void setTimeout(fn, 0);

/** After the events already queued (`setImmediate` in Node, a posted message in browsers). */
export function immediate(): Promise<void> {
  return new Promise<void>((resolve) => schedule(resolve));
}

/** Whether this turn of the event loop has spent its budget (starts the budget on its first call in a turn). */
export function due(): boolean {
  const now = performance.now();
  if (started === null) {
    started = now;
    schedule(endOfTurn);
    return false;
  }
  return now - started >= SLICE_MS;
}

/** Lets the event loop through when this turn's budget is spent; otherwise returns at once. */
export async function pause(): Promise<void> {
  if (due()) await immediate();
}
