// The service soak's health prober, in a worker thread of its own: timed on the soak's main thread,
// a probe would also wait for that thread's event loop, busy with 20 clients' answers and checks, and
// the figure would mix the client's delays into the server's. Sends each probe's round trip in
// milliseconds (or null: no answer, or not 200) to the soak; stops on any message from it.
import { parentPort, workerData } from 'node:worker_threads';

const { url, key, intervalMs } = workerData as { url: string; key: string; intervalMs: number };
let running = true;
parentPort?.once('message', () => {
  running = false;
});

while (running) {
  const t0 = performance.now();
  let ms: number | null = null;
  try {
    const res = await fetch(`${url}/_sandbox/health`, { headers: { 'sandbox-admin-token': key }, signal: AbortSignal.timeout(60_000) });
    await res.arrayBuffer();
    if (res.status === 200) ms = performance.now() - t0;
  } catch {
    // No answer: reported as null, and the soak counts it.
  }
  parentPort?.postMessage(ms);
  await new Promise((resolve) => setTimeout(resolve, intervalMs));
}
parentPort?.close();
