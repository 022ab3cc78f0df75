// The registry section of the fixture document: participants and their bearer tokens.
import { type Static, Type } from '@fastify/type-provider-typebox';
import { type ErrorDetail, pointer } from '../http/errors.js';
import { Strict } from '../http/schema.js';
import { type FixtureSection, recordsOf, textOf, UniqueKeys } from '../runtime/fixture-document.js';

export const RegistryFixtures = Strict({
  participants: Type.Optional(
    Type.Array(
      Strict({
        participantId: Type.String({ minLength: 1, maxLength: 100 }),
        accessToken: Type.String({ minLength: 1, maxLength: 4096, pattern: '^\\S+$' }),
      }),
    ),
  ),
});
export type RegistryFixtures = Static<typeof RegistryFixtures>;

export const registryFixtureSection: FixtureSection<typeof RegistryFixtures> = {
  key: 'registry',
  schema: RegistryFixtures,

  check(section, { store }) {
    const details: ErrorDetail[] = [];
    const ids = new UniqueKeys(details, 'participantId', (k) => store.registry.participantExists(k));
    const tokens = new UniqueKeys(
      details,
      'accessToken',
      (k) => store.registry.participantByToken(k) !== undefined,
      true,
    );
    for (const [i, p] of recordsOf(section, 'participants')) {
      const id = textOf(p.participantId);
      const token = textOf(p.accessToken);
      if (id !== undefined) ids.add(id, pointer('registry', 'participants', i, 'participantId'));
      if (token !== undefined) tokens.add(token, pointer('registry', 'participants', i, 'accessToken'));
    }
    return details;
  },

  load(section, { store }) {
    for (const p of section.participants ?? [])
      store.registry.insertParticipant(p.participantId, p.accessToken);
    return { participants: section.participants?.length ?? 0 };
  },
};
