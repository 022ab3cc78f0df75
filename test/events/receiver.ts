// A webhook receiver for the tests: a node:http server on a free port of 127.0.0.1 that records what
// arrives and answers as told (a status, or nothing at all: a receiver that hangs). Signatures are
// verified by the standardwebhooks library, never by our own code.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * What the receiver answers to the n-th request (0-based): a status, 'hang' to never answer, or
 * 'trickle' to answer 200 and its headers at once, then a byte of body every 50 ms, never ending it.
 */
export type Behaviour = (n: number, received: Received) => number | 'hang' | 'trickle';

export class Receiver {
  readonly received: Received[] = [];
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];
  private readonly hanging: ServerResponse[] = [];
  private server: Server | undefined;
  url = '';

  constructor(public behaviour: Behaviour = () => 204) {}

  async start(path = '/hooks'): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const received = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        const n = this.received.length;
        this.received.push(received);
        const answer = this.behaviour(n, received);
        if (answer === 'hang') this.hanging.push(res);
        else if (answer === 'trickle') {
          this.hanging.push(res);
          res.writeHead(200, { 'content-type': 'text/plain' }).flushHeaders();
          const drip = setInterval(() => res.write('x'), 50);
          res.on('close', () => clearInterval(drip));
        } else res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'no');
        for (const w of [...this.waiters]) {
          if (this.received.length >= w.count) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve();
          }
        }
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}${path}`;
    return this;
  }

  /** Resolves once `count` requests in all have arrived. */
  until(count: number): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }

  /** Every request's payload verified with `secret` by the standardwebhooks library (throws if one fails). */
  verified(secret: string): unknown[] {
    const wh = new Webhook(secret);
    return this.received.map((r) => wh.verify(r.body, r.headers as Record<string, string>));
  }

  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
