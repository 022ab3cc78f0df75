// A file system error as it crosses from the document writer's thread (document-worker.ts) to the
// main thread (document-writer.ts), and the one tests ask for (documentWriter.failWrites).

/** A file system error: its message and code, as Node's fs calls give them. */
export interface Fault {
  message: string;
  code?: string;
  syscall?: string;
}

/** What any thrown value says of itself. */
export function faultOf(e: unknown): Fault {
  const err = e as { message?: unknown; code?: unknown; syscall?: unknown } | undefined;
  const fault: Fault = { message: String(err?.message) };
  if (typeof err?.code === 'string') fault.code = err.code;
  if (typeof err?.syscall === 'string') fault.syscall = err.syscall;
  return fault;
}

/** The write failure `failWrites` injects (tests), as the file system would report it. */
export function injectedFault(code: string): Fault {
  return { message: `${code}: injected, write`, code, syscall: 'write' };
}
