// Loaded into the server the service soak starts (node --import): the server's own event-loop delay,
// which a health probe's round trip mixes with the client's loop and the network. It runs only when
// the server was started with an IPC channel (the soak's spawn) and answers two messages on it:
// 'loop-delay:reset' (traffic starts) and 'loop-delay:report' (traffic stopped), the latter with the
// delay's percentiles in milliseconds. Nothing of it is part of the sandbox.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelayReport {
  type: 'loop-delay';
  samples: number;
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  meanMs: number;
}

if (process.send && process.channel) {
  // 10 ms: the timer's own period is part of every sample, so the figures read as "10 ms plus the delay".
  const RESOLUTION_MS = 10;
  const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  histogram.enable();
  const ms = (ns: number) => Math.round((ns / 1e6) * 10) / 10;
  // The channel must not keep the server alive on its own (SIGTERM still ends it as before).
  process.channel.unref();
  process.on('message', (message: unknown) => {
    if (message === 'loop-delay:reset') histogram.reset();
    if (message === 'loop-delay:report') {
      const report: LoopDelayReport = {
        type: 'loop-delay',
        samples: histogram.count,
        p50Ms: ms(histogram.percentile(50)),
        p99Ms: ms(histogram.percentile(99)),
        p999Ms: ms(histogram.percentile(99.9)),
        maxMs: ms(histogram.max),
        meanMs: ms(histogram.mean),
      };
      process.send?.(report);
    }
  });
}
