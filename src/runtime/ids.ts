// Generated keys. Random by default; with a seed, every key is reproducible run to run, so a test
// can assert on `chaveRemessa` values. Secrets (token_acesso) stay unguessable unless the seed
// was given with `secrets: true`.
import { createHmac, randomBytes } from 'node:crypto';

export interface Ids {
  /** A new key: `prefix` followed by 24 upper-case base-32 characters (120 bits). */
  newId(prefix?: string): string;
  /** A new secret: 43 base64url characters (256 bits). */
  secret(): string;
  /** `length` characters drawn from `alphabet` (templates' randomValue): seeded like keys. */
  randomText(length: number, alphabet: string): string;
}

export interface IdsState {
  seed: string | undefined;
  seededSecrets: boolean;
  counter: number;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

function base32(bytes: Uint8Array, length: number): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= 0xff;
  }
  return out;
}

export class SandboxIds implements Ids {
  private counter = 0;
  private seed: string | undefined;
  private seededSecrets = false;

  constructor(seed?: string, options: { secrets?: boolean } = {}) {
    this.reseed(seed, options);
  }

  /** Restarts the sequence: the same seed gives the same keys again. */
  reseed(seed?: string, options: { secrets?: boolean } = {}): void {
    this.seed = seed;
    this.seededSecrets = seed !== undefined && options.secrets === true;
    this.counter = 0;
  }

  /** Where the sequence stands, for a snapshot to put it back. */
  save(): IdsState {
    return { seed: this.seed, seededSecrets: this.seededSecrets, counter: this.counter };
  }

  restore(state: IdsState): void {
    this.seed = state.seed;
    this.seededSecrets = state.seededSecrets;
    this.counter = state.counter;
  }

  get seeded(): boolean {
    return this.seed !== undefined;
  }

  private bytes(kind: string, useSeed: boolean): Buffer {
    if (useSeed && this.seed !== undefined) {
      this.counter += 1;
      return createHmac('sha256', this.seed).update(`${kind}:${this.counter}`).digest();
    }
    return randomBytes(32);
  }

  newId(prefix = ''): string {
    return prefix + base32(this.bytes('id', true), 24);
  }

  secret(): string {
    return this.bytes('secret', this.seededSecrets).toString('base64url');
  }

  randomText(length: number, alphabet: string): string {
    if (alphabet.length === 0 || alphabet.length > 256) throw new Error('randomText: an alphabet of 1 to 256 characters');
    // Bytes at or above the largest multiple of the alphabet's size are skipped, so every
    // character is equally likely.
    const limit = 256 - (256 % alphabet.length);
    let out = '';
    while (out.length < length) {
      for (const b of this.bytes('id', true)) {
        if (b < limit) out += alphabet[b % alphabet.length];
        if (out.length === length) break;
      }
    }
    return out;
  }
}
