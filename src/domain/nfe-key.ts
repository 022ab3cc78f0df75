// NF-e access key (chave de acesso), 44 characters:
// cUF(2) AAMM(4) issuer CNPJ/CPF(14) model(2) series(3) number(9) emission type(1) code(8) DV(1).
// Since July 2026 the issuer slot may hold an alphanumeric CNPJ; as in the CNPJ itself, letters
// stand only in its first 12 characters (its two check digits stay numeric), and every character is
// valued ASCII code - 48, so digits keep their value.

export type NfeKeyCheck = { ok: true } | { ok: false; reason: string };

const KEY_LENGTH = 44;
// 0-based bounds of the first 12 characters of the issuer CNPJ (positions 7-18, 1-based), the only
// place letters may appear: the CNPJ's check digits (positions 19-20) are digits, as everywhere else.
const LETTERS_START = 6;
const LETTERS_END = 18;

/** The check digit of an access key from its first 43 characters. */
export function nfeKeyCheckDigit(first43: string): number {
  if (first43.length !== KEY_LENGTH - 1 || characterProblem(first43) !== undefined) {
    throw new RangeError('an NF-e check digit needs the first 43 characters of a well-formed key');
  }
  let sum = 0;
  // Weights 2..9 cycle from the rightmost character leftwards.
  for (let i = first43.length - 1, weight = 2; i >= 0; i--, weight = weight === 9 ? 2 : weight + 1) {
    sum += (first43.charCodeAt(i) - 48) * weight;
  }
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

/** Checks length, characters and check digit; the reason names the expected digit on a mismatch. */
export function checkNfeKey(key: string): NfeKeyCheck {
  if (key.length !== KEY_LENGTH) {
    return { ok: false, reason: `an NF-e access key has 44 characters (got ${key.length})` };
  }
  const problem = characterProblem(key);
  if (problem !== undefined) return { ok: false, reason: problem };
  const expected = nfeKeyCheckDigit(key.slice(0, KEY_LENGTH - 1));
  if (key.charCodeAt(KEY_LENGTH - 1) - 48 !== expected) {
    return { ok: false, reason: `NF-e access key check digit does not match (expected ${expected})` };
  }
  return { ok: true };
}

function characterProblem(key: string): string | undefined {
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    const digit = c >= 48 && c <= 57;
    const upper = c >= 65 && c <= 90;
    if (digit) continue;
    if (upper && i >= LETTERS_START && i < LETTERS_END) continue;
    const where = `${JSON.stringify(key.charAt(i))} at position ${i + 1}`;
    return upper
      ? `NF-e access key has a letter ${where}; only the first 12 characters of the issuer CNPJ (positions 7-18) may hold letters, its check digits (positions 19-20) are digits`
      : `NF-e access key has an invalid character ${where}; only digits (and upper-case letters in the issuer CNPJ's first 12 characters, positions 7-18) are allowed`;
  }
  return undefined;
}

/**
 * Fast path for fixed-width files: true when text[start, start + 44) is an access key that
 * checkNfeKey accepts. One charCode loop, no allocation; call checkNfeKey for the reason.
 */
export function isValidNfeKeyAt(text: string, start: number): boolean {
  if (text.length < start + KEY_LENGTH) return false;
  let sum = 0;
  let weight = 2;
  for (let i = KEY_LENGTH - 2; i >= 0; i--) {
    const c = text.charCodeAt(start + i);
    const digit = c >= 48 && c <= 57;
    const issuerLetter = c >= 65 && c <= 90 && i >= LETTERS_START && i < LETTERS_END;
    if (!digit && !issuerLetter) return false;
    sum += (c - 48) * weight;
    weight = weight === 9 ? 2 : weight + 1;
  }
  const r = sum % 11;
  return text.charCodeAt(start + KEY_LENGTH - 1) - 48 === (r < 2 ? 0 : 11 - r);
}
