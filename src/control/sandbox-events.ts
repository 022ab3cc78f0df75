// The events of the control plane (docs/events.md): the state changes a test makes itself. Each is
// emitted once its change holds: a refused reset, fixture document or clock move emits nothing.
import type { EventType } from '../runtime/events.js';
import type { Runtime } from '../runtime/index.js';
import type { LoadCounts } from './fixtures.js';

export const RESET: EventType = {
  type: 'sandbox.reset',
  subject: 'reset',
  when: 'POST /_sandbox/reset: the state was wiped and the fixtures loaded (the feed is emptied first: this is its first event)',
  data: ['loaded'],
};

export const FIXTURES_LOADED: EventType = {
  type: 'sandbox.fixtures.loaded',
  subject: 'fixtures',
  when: 'POST /_sandbox/fixtures: a fixture document was added',
  data: ['loaded'],
};

export const CLOCK_CHANGED: EventType = {
  type: 'sandbox.clock.changed',
  subject: 'clock',
  when: 'POST or DELETE /_sandbox/clock: the sandbox clock was set, advanced, frozen, unfrozen or returned to real time',
  data: ['previous', 'now', 'frozen', 'offsetMs'],
};

export const SNAPSHOT_RESTORED: EventType = {
  type: 'sandbox.snapshot.restored',
  subject: 'snapshots/{name}',
  when: 'POST /_sandbox/snapshots/{name}/restore: the whole state was put back',
  data: ['name', 'createdAt'],
};

export const CONTROL_EVENT_TYPES: readonly EventType[] = [RESET, FIXTURES_LOADED, CLOCK_CHANGED, SNAPSHOT_RESTORED];

/** A reset is the first event of the feed it empties. */
export function resetDone(runtime: Runtime, loaded: LoadCounts): void {
  runtime.events.clear();
  runtime.events.emit(RESET.type, RESET.subject, { loaded });
}

export function fixturesLoaded(runtime: Runtime, loaded: LoadCounts): void {
  runtime.events.emit(FIXTURES_LOADED.type, FIXTURES_LOADED.subject, { loaded });
}

export function clockChanged(runtime: Runtime, previous: string): void {
  const { now, frozen, offsetMs } = runtime.clock.describe();
  runtime.events.emit(CLOCK_CHANGED.type, CLOCK_CHANGED.subject, { previous, now, frozen, offsetMs });
}

export function snapshotRestored(runtime: Runtime, name: string, createdAt: string): void {
  runtime.events.emit(SNAPSHOT_RESTORED.type, `snapshots/${name}`, { name, createdAt });
}
