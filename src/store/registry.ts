// Registry storage: participants.
import type { Db } from './db.js';

export class RegistryStore {
  private readonly s;

  constructor(db: Db) {
    this.s = {
      insertParticipant: db.prepare(
        'INSERT INTO rg_participants (participant_id, access_token) VALUES (?, ?)',
      ),
      participantExists: db.prepare('SELECT 1 FROM rg_participants WHERE participant_id = ?').pluck(),
      participantByToken: db
        .prepare('SELECT participant_id FROM rg_participants WHERE access_token = ?')
        .pluck(),
    };
  }

  insertParticipant(participantId: string, accessToken: string): void {
    this.s.insertParticipant.run(participantId, accessToken);
  }

  participantExists(participantId: string): boolean {
    return this.s.participantExists.get(participantId) !== undefined;
  }

  participantByToken(accessToken: string): string | undefined {
    return this.s.participantByToken.get(accessToken) as string | undefined;
  }
}
