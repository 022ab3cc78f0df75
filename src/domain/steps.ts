// Work done in steps: a generator that pauses (a bare `yield`) after each bounded piece of work, so
// that the same code runs whole (a small file, a template's synchronous read) or a step per turn of
// the event loop (a file near the body limit), and finds the same answer either way.

/** Work that pauses between bounded pieces and returns T. */
export type Steps<T> = Generator<void, T, void>;

/** Runs every step at once. */
export function whole<T>(steps: Steps<T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs the steps, awaiting `turn()` between two of them (other requests are served meanwhile). */
export async function inTurns<T>(steps: Steps<T>, turn: () => Promise<void>): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await turn();
  }
}
