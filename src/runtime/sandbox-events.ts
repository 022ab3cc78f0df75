// The events of the sandbox itself (docs/events.md): the state changes a test makes through the
// control plane. Each is emitted once its change holds: a refused reset, fixture document or clock
// move emits nothing.
import type { SandboxClock } from './clock.js';
import type { EventType, Events } from './events.js';
import type { LoadCounts } from './fixture-document.js';

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

export const SANDBOX_EVENT_TYPES: readonly EventType[] = [RESET, FIXTURES_LOADED, CLOCK_CHANGED, SNAPSHOT_RESTORED];

/** A reset is the first event of the feed it empties. */
export function resetDone(events: Events, loaded: LoadCounts): void {
  events.clear();
  events.emit(RESET.type, RESET.subject, { loaded });
}

export function fixturesLoaded(events: Events, loaded: LoadCounts): void {
  events.emit(FIXTURES_LOADED.type, FIXTURES_LOADED.subject, { loaded });
}

export function clockChanged(events: Events, clock: SandboxClock, previous: string): void {
  const { now, frozen, offsetMs } = clock.describe();
  events.emit(CLOCK_CHANGED.type, CLOCK_CHANGED.subject, { previous, now, frozen, offsetMs });
}

export function snapshotRestored(events: Events, name: string, createdAt: string): void {
  events.emit(SNAPSHOT_RESTORED.type, `snapshots/${name}`, { name, createdAt });
}
