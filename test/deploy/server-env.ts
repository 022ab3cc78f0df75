// The environment variables the server reads, as its --help lists them (`env NAME`): what the deploy
// recipes may set for the sandbox.
import { HELP } from '../../src/config.js';

export const SERVER_ENV: ReadonlySet<string> = new Set([...HELP.matchAll(/env ([A-Z_]+)/g)].flatMap((m) => (m[1] ? [m[1]] : [])));
