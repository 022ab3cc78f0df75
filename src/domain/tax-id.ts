// CPF and CNPJ check digits, including the alphanumeric CNPJ issued from July 2026
// (IN RFB 2.229/2024): the first 12 characters may be 0-9 or A-Z, each valued ASCII code - 48
// (so digits keep their value and A = 17, not 10); the two check digits stay numeric.

export type TaxIdKind = 'cpf' | 'cnpj';

export type TaxIdCheck = { ok: true; kind: TaxIdKind; value: string } | { ok: false; reason: string };

export interface TaxIdOptions {
  /**
   * Accept the canonical mask besides the bare characters: NNN.NNN.NNN-NN (CPF), NN.NNN.NNN/NNNN-NN
   * (CNPJ, alphanumeric too). Punctuation anywhere else, and whitespace, are refused. Defaults to true.
   */
  punctuation?: boolean;
  /** Which kinds are acceptable. Defaults to both. */
  kinds?: TaxIdKind[];
}

const CNPJ_WEIGHTS_1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
/** The one punctuated form of each kind ("with or without punctuation": these, or none at all). */
const MASKS: Record<TaxIdKind, string> = { cpf: 'NNN.NNN.NNN-NN', cnpj: 'NN.NNN.NNN/NNNN-NN' };
const BARE_LENGTH: Record<TaxIdKind, number> = { cpf: 11, cnpj: 14 };
const CNPJ_WEIGHTS_2 = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];

// Longer inputs cannot be a tax id even fully punctuated; refusing them early keeps the scan cheap.
const MAX_INPUT_LENGTH = 64;

/**
 * Removes the standard punctuation ('.', '/', '-') and surrounding whitespace and upper-cases
 * letters. Letters are kept: "keep only digits" cleaning would destroy an alphanumeric CNPJ.
 */
export function normalizeTaxId(input: string): string {
  return input.trim().replace(/[./-]/g, '').toUpperCase();
}

/** The two check digits of a CPF from its first nine digits. */
export function cpfCheckDigits(first9: string): string {
  if (!/^\d{9}$/.test(first9)) throw new RangeError('a CPF check digit needs the first 9 digits');
  const values = Array.from(first9, charValue);
  const dv1 = mod11Digit(weightedSum(values, (i) => 10 - i));
  const dv2 = mod11Digit(weightedSum([...values, dv1], (i) => 11 - i));
  return `${dv1}${dv2}`;
}

/** The two check digits of a CNPJ (numeric or alphanumeric) from its first twelve characters. */
export function cnpjCheckDigits(first12: string): string {
  if (!/^[0-9A-Z]{12}$/.test(first12)) {
    throw new RangeError('a CNPJ check digit needs the first 12 characters (0-9 or A-Z)');
  }
  const values = Array.from(first12, charValue);
  const dv1 = mod11Digit(weightedSum(values, (i) => CNPJ_WEIGHTS_1[i] ?? 0));
  const dv2 = mod11Digit(weightedSum([...values, dv1], (i) => CNPJ_WEIGHTS_2[i] ?? 0));
  return `${dv1}${dv2}`;
}

/** A bare CPF: exactly 11 digits, not all equal, with matching check digits. */
export function isValidCpf(value: string): boolean {
  return /^\d{11}$/.test(value) && cpfProblem(value) === undefined;
}

/** A bare CNPJ: exactly 14 upper-case characters, numeric or alphanumeric, with matching check digits. */
export function isValidCnpj(value: string): boolean {
  return /^[0-9A-Z]{12}\d{2}$/.test(value) && cnpjProblem(value) === undefined;
}

/**
 * Checks a CPF or CNPJ as a client would send it. With punctuation (the default) the input is either
 * bare or written in its kind's whole mask (MASKS), nothing around it: punctuation elsewhere and
 * whitespace are refused, naming the position and the forms accepted (assumption tax-id-forms);
 * without it the input must be bare. Letters are upper case (a lower-case one is refused, naming it);
 * any other character is refused. `value` is the bare form; the input itself is never changed.
 */
export function checkTaxId(input: string, options: TaxIdOptions = {}): TaxIdCheck {
  const punctuation = options.punctuation ?? true;
  const kinds = options.kinds ?? ['cpf', 'cnpj'];
  if (kinds.length === 0) throw new RangeError('checkTaxId needs at least one accepted kind');
  const wantCpf = kinds.includes('cpf');
  const wantCnpj = kinds.includes('cnpj');
  const shapeReason =
    wantCpf && wantCnpj
      ? 'must be a CPF (11 digits) or a CNPJ (14 characters)'
      : wantCpf
        ? 'must be a CPF (11 digits)'
        : 'must be a CNPJ (14 characters)';

  if (input.length > MAX_INPUT_LENGTH) return { ok: false, reason: shapeReason };
  const forms = punctuation ? formsText(kinds) : '';

  // Build the bare value, remembering each character's 1-based position in the input for reasons.
  let value = '';
  const positions: number[] = [];
  /** 1-based position of the first lower-case letter: refused, whatever the context (see below). */
  let lower = 0;
  for (let i = 0; i < input.length; i++) {
    const ch = input.charAt(i);
    if (/[0-9A-Za-z]/.test(ch)) {
      if (lower === 0 && ch !== ch.toUpperCase()) lower = i + 1;
      value += ch.toUpperCase();
      positions.push(i + 1);
    } else if (!(punctuation && (ch === '.' || ch === '/' || ch === '-'))) {
      return {
        ok: false,
        reason: punctuation
          ? `contains ${describe(ch)} at position ${i + 1}; ${forms}`
          : `contains ${describe(ch)} at position ${i + 1}; only digits and letters are allowed`,
      };
    }
  }
  if (punctuation && value.length !== input.length) {
    const misplaced = maskProblem(input, value.length, kinds);
    if (misplaced !== undefined) return { ok: false, reason: `${misplaced}; ${forms}` };
  }

  if (value.length === 11 && wantCpf) {
    const letter = value.search(/[A-Z]/);
    if (letter >= 0) {
      return {
        ok: false,
        reason: `a CPF has digits only (found "${value.charAt(letter)}" at position ${positions[letter]})`,
      };
    }
    const problem = cpfProblem(value);
    return problem === undefined ? { ok: true, kind: 'cpf', value } : { ok: false, reason: problem };
  }
  if (value.length === 14 && wantCnpj) {
    const letter = value.slice(12).search(/[A-Z]/);
    if (letter >= 0) {
      const at = 12 + letter;
      return {
        ok: false,
        reason: `CNPJ check digits (the last two characters) must be digits (found "${value.charAt(at)}" at position ${positions[at]})`,
      };
    }
    // One rule wherever a CNPJ is read (API fields, NF-e keys, CNAB files): its letters are A-Z, as
    // IN RFB 2.229/2024 writes them; a lower-case one is refused rather than silently upper-cased.
    if (lower > 0) {
      const shown = input.toUpperCase();
      return {
        ok: false,
        reason: `letters of an alphanumeric CNPJ are upper case (A-Z): found ${JSON.stringify(input.charAt(lower - 1))} at position ${lower}; send ${JSON.stringify(shown)}`,
      };
    }
    const problem = cnpjProblem(value);
    return problem === undefined ? { ok: true, kind: 'cnpj', value } : { ok: false, reason: problem };
  }
  return { ok: false, reason: shapeReason };
}

/** What the accepted forms are, for a refusal: the bare characters, or the mask, of each kind. */
function formsText(kinds: readonly TaxIdKind[]): string {
  const [only] = kinds;
  if (kinds.length === 1 && only !== undefined) {
    const what = only === 'cpf' ? 'digits' : 'characters';
    return `send it bare (${BARE_LENGTH[only]} ${what}) or in its mask, ${MASKS[only]}`;
  }
  return `send it bare (11 or 14 characters) or in its mask, ${MASKS.cpf} (CPF) or ${MASKS.cnpj} (CNPJ)`;
}

/**
 * Where a punctuated input leaves its mask: the mask of the kind its `bare` characters count, the
 * first position where the input and the mask differ; with no such mask, its first punctuation.
 */
function maskProblem(input: string, bare: number, kinds: readonly TaxIdKind[]): string | undefined {
  const kind = kinds.find((k) => BARE_LENGTH[k] === bare);
  if (kind === undefined) {
    const at = input.search(/[./-]/);
    return `${JSON.stringify(input.charAt(at))} at position ${at + 1} is punctuation outside a mask`;
  }
  const mask = MASKS[kind];
  for (let i = 0; i < Math.max(mask.length, input.length); i++) {
    const m = mask.charAt(i);
    const ch = input.charAt(i);
    const maskPunct = m !== 'N';
    const inputPunct = ch === '.' || ch === '/' || ch === '-';
    if (maskPunct ? ch !== m : inputPunct || ch === '') {
      const found = ch === '' ? 'the end of the value' : JSON.stringify(ch);
      const expected = maskPunct ? JSON.stringify(m) : 'a character';
      return `${found} at position ${i + 1} where the mask ${mask} has ${expected}`;
    }
  }
  return undefined;
}

/** Expects 11 digits; says what is wrong, or undefined when the CPF is valid. */
function cpfProblem(value: string): string | undefined {
  if (/^(\d)\1{10}$/.test(value)) return 'CPF cannot have all 11 digits equal';
  const expected = cpfCheckDigits(value.slice(0, 9));
  return value.slice(9) === expected ? undefined : `CPF check digits do not match (expected ${expected})`;
}

/** Expects 12 characters 0-9/A-Z then 2 digits; says what is wrong, or undefined when valid. */
function cnpjProblem(value: string): string | undefined {
  // 00000000000000 passes the arithmetic; the Receita never issues all-equal numbers (assumption cnpj-all-equal).
  if (/^(\d)\1{13}$/.test(value)) return 'CNPJ cannot have all 14 digits equal';
  const expected = cnpjCheckDigits(value.slice(0, 12));
  return value.slice(12) === expected ? undefined : `CNPJ check digits do not match (expected ${expected})`;
}

function charValue(ch: string): number {
  return ch.charCodeAt(0) - 48;
}

function weightedSum(values: number[], weight: (index: number) => number): number {
  return values.reduce((sum, v, i) => sum + v * weight(i), 0);
}

function mod11Digit(sum: number): number {
  const r = sum % 11;
  return r < 2 ? 0 : 11 - r;
}

function describe(ch: string): string {
  if (ch === ' ') return 'a space';
  return /\s/.test(ch) ? 'whitespace' : JSON.stringify(ch);
}

// Fast paths for fixed-width files (a CNAB file has one drawee per record, 100 000 records and more):
// one charCode loop, no regex, no allocation. They decide exactly what checkTaxId decides for a bare
// value; call checkTaxId for the reason when they say false.

/** True when text[start, start + 11) is a valid bare CPF. */
export function isValidCpfAt(text: string, start: number): boolean {
  let sum1 = 0;
  let sum2 = 0;
  let allEqual = true;
  const first = text.charCodeAt(start);
  for (let i = 0; i < 9; i++) {
    const c = text.charCodeAt(start + i);
    const v = c - 48;
    if (!(v >= 0 && v <= 9)) return false;
    if (c !== first) allEqual = false;
    sum1 += v * (10 - i);
    sum2 += v * (11 - i);
  }
  const dv1 = mod11Digit(sum1);
  const dv2 = mod11Digit(sum2 + dv1 * 2);
  const c9 = text.charCodeAt(start + 9);
  const c10 = text.charCodeAt(start + 10);
  if (allEqual && c9 === first && c10 === first) return false;
  return c9 - 48 === dv1 && c10 - 48 === dv2;
}

/** True when text[start, start + 14) is a valid bare CNPJ, numeric or alphanumeric (upper case). */
export function isValidCnpjAt(text: string, start: number): boolean {
  let sum1 = 0;
  let sum2 = 0;
  let allEqual = true;
  const first = text.charCodeAt(start);
  for (let i = 0; i < 12; i++) {
    const c = text.charCodeAt(start + i);
    if (!((c >= 48 && c <= 57) || (c >= 65 && c <= 90))) return false;
    if (c !== first) allEqual = false;
    sum1 += (c - 48) * (CNPJ_WEIGHTS_1[i] ?? 0);
    sum2 += (c - 48) * (CNPJ_WEIGHTS_2[i] ?? 0);
  }
  const dv1 = mod11Digit(sum1);
  const dv2 = mod11Digit(sum2 + dv1 * 2);
  const c12 = text.charCodeAt(start + 12);
  const c13 = text.charCodeAt(start + 13);
  if (allEqual && first >= 48 && first <= 57 && c12 === first && c13 === first) return false;
  return c12 - 48 === dv1 && c13 - 48 === dv2;
}
