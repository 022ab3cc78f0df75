// Every schema of the served document is a valid JSON Schema (2020-12, OpenAPI 3.1's dialect), by
// Ajv's own meta-schema: the route schemas it is built from are compiled without that check at run
// time (http/validation.ts), so it is made here once.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { testApp } from '../helpers.js';

type Node = Record<string, unknown>;
const isObject = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every `schema` of a parameter or a media type, and every component schema, with where it is. */
function schemasOf(document: Node): Array<[string, unknown]> {
  const found: Array<[string, unknown]> = [];
  const visit = (node: unknown, at: string): void => {
    if (Array.isArray(node)) return node.forEach((v, i) => visit(v, `${at}/${i}`));
    if (!isObject(node)) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'schema' && isObject(v)) found.push([`${at}/schema`, v]);
      else visit(v, `${at}/${k}`);
    }
  };
  visit(document.paths, '#/paths');
  const components = isObject(document.components) && isObject(document.components.schemas) ? document.components.schemas : {};
  for (const [name, schema] of Object.entries(components)) found.push([`#/components/schemas/${name}`, schema]);
  return found;
}

describe('the route schemas', () => {
  it('are valid JSON Schemas by the 2020-12 meta-schema', async () => {
    const app = await testApp();
    const document = (await app.inject({ url: '/openapi.json' })).json() as Node;
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const schemas = schemasOf(document);
    expect(schemas.length).toBeGreaterThan(100);
    const invalid = schemas
      .filter(([, schema]) => !ajv.validateSchema(schema as object))
      .map(([at]) => `${at}: ${ajv.errorsText()}`);
    expect(invalid).toEqual([]);
  });
});
