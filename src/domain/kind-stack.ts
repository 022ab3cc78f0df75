// A stack of one-bit kinds (a dictionary or an array): the containers a reader keeps no more than
// the kind of. A reader of untrusted text that keeps an object per open container spends memory in
// proportion to the nesting the text asks for: 15 MB of "[" made the PDF reader of rule 3 keep 15
// million frames (about 1.9 GB; three such files at once ended the process). Past the few levels
// whose details it reads (domain/pdf.ts), it keeps only the kind of each container here, one bit
// each: a closer must still match its opener. (The JSON reader of a body needs no such stack: it
// refuses a body past MAX_JSON_DEPTH levels, domain/json-depth.ts.)

export class KindStack {
  private bits = new Uint8Array(64);
  private size = 0;

  get length(): number {
    return this.size;
  }

  push(kind: boolean): void {
    const byte = this.size >>> 3;
    if (byte === this.bits.length) {
      const grown = new Uint8Array(this.bits.length * 2);
      grown.set(this.bits);
      this.bits = grown;
    }
    const mask = 1 << (this.size & 7);
    this.bits[byte] = kind ? (this.bits[byte] as number) | mask : (this.bits[byte] as number) & ~mask;
    this.size++;
  }

  /** The kind on top, or undefined when empty. */
  peek(): boolean | undefined {
    if (this.size === 0) return undefined;
    const at = this.size - 1;
    return (((this.bits[at >>> 3] as number) >>> (at & 7)) & 1) === 1;
  }

  /** Removes the kind on top and returns it, or undefined when empty. */
  pop(): boolean | undefined {
    const kind = this.peek();
    if (kind !== undefined) this.size--;
    return kind;
  }

  clear(): void {
    this.size = 0;
    if (this.bits.length > 64) this.bits = new Uint8Array(64);
  }
}
