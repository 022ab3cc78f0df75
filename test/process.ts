// Servers started as child processes (the compiled server, npm start, npx): wait for the log line
// that names the port, and for the port to close.
import type { ChildProcess } from 'node:child_process';

/** Resolves with the port once the child logs "listening at http://127.0.0.1:<port>"; rejects if it exits. */
export function listeningPort(child: ChildProcess): { port: Promise<number>; output: () => string } {
  let output = '';
  const port = new Promise<number>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(output);
      if (m) resolve(Number(m[1]));
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${output}`)));
  });
  return { port, output: () => output };
}

/** Polls until nothing answers at `url` (true), giving up after about ten seconds (false). */
export async function closesSoon(url: string): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (!(await fetch(url).then(() => true, () => false))) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
