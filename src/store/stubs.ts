// Storage of user-defined operations added at run time (stub mappings, as the JSON they were given
// in) and of every scenario's current state. In the database like the rest of a sandbox state, so
// each workspace has its own, snapshots hold them, reset empties them and a database file keeps them
// across restarts. Mappings read from the --stubs folder are not stored: they are the server's.
import type { Db } from './db.js';

export interface StubRow {
  id: string;
  /** Order of addition: the mapping added last wins among equal priorities. */
  seq: number;
  /** The mapping as JSON text. */
  mapping: string;
}

export class StubStore {
  private readonly statements;

  constructor(db: Db) {
    this.statements = {
      list: db.prepare('SELECT id, seq, mapping FROM sb_stub_mappings ORDER BY seq'),
      nextSeq: db.prepare('SELECT coalesce(max(seq), 0) + 1 FROM sb_stub_mappings').pluck(),
      upsert: db.prepare(
        `INSERT INTO sb_stub_mappings (id, seq, mapping) VALUES (@id, @seq, @mapping)
         ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, mapping = excluded.mapping`,
      ),
      exists: db.prepare('SELECT 1 FROM sb_stub_mappings WHERE id = ?').pluck(),
      remove: db.prepare('DELETE FROM sb_stub_mappings WHERE id = ?'),
      clear: db.prepare('DELETE FROM sb_stub_mappings'),
      scenario: db.prepare('SELECT state FROM sb_stub_scenarios WHERE name = ?').pluck(),
      scenarios: db.prepare('SELECT name, state FROM sb_stub_scenarios ORDER BY name'),
      setScenario: db.prepare(
        'INSERT INTO sb_stub_scenarios (name, state) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET state = excluded.state',
      ),
      clearScenario: db.prepare('DELETE FROM sb_stub_scenarios WHERE name = ?'),
      clearScenarios: db.prepare('DELETE FROM sb_stub_scenarios'),
    };
  }

  list(): StubRow[] {
    return this.statements.list.all() as StubRow[];
  }

  /** Adds mappings, in order, after every stored one; an id already stored is replaced and becomes the newest. */
  put(mappings: ReadonlyArray<{ id: string; mapping: string }>): { replaced: string[] } {
    const replaced: string[] = [];
    let seq = this.statements.nextSeq.get() as number;
    for (const m of mappings) {
      if (this.statements.exists.get(m.id) !== undefined) replaced.push(m.id);
      this.statements.upsert.run({ id: m.id, seq: seq++, mapping: m.mapping });
    }
    return { replaced };
  }

  remove(id: string): boolean {
    return this.statements.remove.run(id).changes > 0;
  }

  clear(): number {
    return this.statements.clear.run().changes;
  }

  /** The scenario's state; undefined while it has not moved from its start ("Started"). */
  scenario(name: string): string | undefined {
    return this.statements.scenario.get(name) as string | undefined;
  }

  scenarios(): Array<{ name: string; state: string }> {
    return this.statements.scenarios.all() as Array<{ name: string; state: string }>;
  }

  setScenario(name: string, state: string): void {
    this.statements.setScenario.run(name, state);
  }

  /** Back to the start: one scenario, or every one. */
  resetScenarios(name?: string): number {
    return (name === undefined ? this.statements.clearScenarios.run() : this.statements.clearScenario.run(name)).changes;
  }
}
