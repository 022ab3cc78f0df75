import { describe, expect, it } from 'vitest';
import { findDuplicateKey } from '../../src/http/json.js';

describe('finding a key sent twice', () => {
  it('finds nothing in a document without duplicates', () => {
    expect(findDuplicateKey('{"a":1,"b":{"a":2},"c":[{"a":1},{"a":2}]}')).toBeUndefined();
    expect(findDuplicateKey('[1,"a","a",{"x":"a"}]')).toBeUndefined();
    expect(findDuplicateKey('"just a string"')).toBeUndefined();
  });

  it('names a top-level duplicate', () => {
    expect(findDuplicateKey('{"token":"a","fileName":"f","token":"b"}')).toBe('/token');
  });

  it('names a nested duplicate with its full pointer, array indexes included', () => {
    expect(findDuplicateKey('{"registros":[{"a":1},{"b":2,"c":{"d":1,"d":2}}]}')).toBe('/registros/1/c/d');
  });

  it('is not fooled by quotes, braces and commas inside strings, or by escaped quotes', () => {
    expect(findDuplicateKey('{"a":"x\\"y,{\\"a\\":1}","b":"[,]"}')).toBeUndefined();
    expect(findDuplicateKey('{"a\\\\":1,"a\\\\":2}')).toBe('/a\\');
  });

  it('compares keys after unescaping, as JSON.parse does', () => {
    expect(findDuplicateKey('{"\\u0061":1,"a":2}')).toBe('/a');
  });

  it('escapes ~ and / in the pointer', () => {
    expect(findDuplicateKey('{"a/b":{"c~d":1,"c~d":2}}')).toBe('/a~1b/c~0d');
  });

  it('scans a 20 MB string value without trouble', () => {
    const big = 'A'.repeat(20_000_000);
    expect(findDuplicateKey(`{"documento":"${big}","documento":"x"}`)).toBe('/documento');
  });
});
