// What an HTTP/1.1 header value or reason phrase may hold (RFC 9112 sections 4 and 5.5, RFC 9110
// section 5.5): HTAB, SP, visible ASCII (VCHAR) and obs-text (0x80 to 0xFF). Node writes the head
// as Latin-1, one byte per character, and refuses any other character with ERR_INVALID_CHAR, thrown
// where the answer is written: one place holds the rule for every answer the sandbox relays or makes.

const OUTSIDE = /[^\t\x20-\x7e\x80-\xff]/;
const OUTSIDE_ALL = /[^\t\x20-\x7e\x80-\xff]/g;

/** The rule, for messages. */
export const HEADER_TEXT_RULE =
  'HTAB, SP, visible ASCII and obs-text (U+0080 to U+00FF, sent as one Latin-1 byte each), what RFC 9112 lets a header value or reason phrase hold: no control character (CR, LF, NUL, U+0001...) and no character above U+00FF (such text belongs in the body, or percent-encoded)';

/** True when an HTTP/1.1 head can carry `value` as a header value or reason phrase. */
export function isHeaderText(value: string): boolean {
  return !OUTSIDE.test(value);
}

/** `value` with every character a head cannot carry written as a space (as Jetty writes it, so as WireMock sends it). */
export function asHeaderText(value: string): string {
  return value.replace(OUTSIDE_ALL, ' ');
}

/** A header name: an RFC 9110 token. */
export function isHeaderName(name: string): boolean {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name);
}
