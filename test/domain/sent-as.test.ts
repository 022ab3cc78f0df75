import { Buffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { encodedTwiceHint, sentAs } from '../../src/domain/sent-as.js';

describe('what a file sent as base64 text was sent as', () => {
  const pdf = Buffer.from('%PDF-1.7\n1 0 obj << >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');
  const cnab = `01REMESSA01COBRANCA${' '.repeat(375)}000001\r\n`;

  it('names PDF text, CNAB text and a data: URI, and nothing in base64 text', () => {
    expect(sentAs(pdf.toString('latin1'))).toBe('pdf-text');
    expect(sentAs(cnab)).toBe('cnab-text');
    expect(sentAs(`data:application/pdf;base64,${pdf.toString('base64')}`)).toBe('data-uri');
    expect(sentAs(pdf.toString('base64'))).toBeUndefined();
  });

  it('says a file was encoded twice when its decoded bytes are the base64 of a PDF or a CNAB file', () => {
    expect(encodedTwiceHint(Buffer.from(pdf.toString('base64'), 'latin1'))).toContain('decodes to a PDF');
    const wrapped = pdf.toString('base64').replace(/(.{76})/g, '$1\r\n');
    expect(encodedTwiceHint(Buffer.from(wrapped, 'latin1'))).toContain('decodes to a PDF');
    expect(encodedTwiceHint(Buffer.from(Buffer.from(cnab, 'latin1').toString('base64'), 'latin1'))).toContain('decodes to a CNAB file');
    // A file whose base64 ends with padding: the padded last quad counts.
    const padded = Buffer.from(`0${'0'.repeat(398)}1\n`, 'latin1').toString('base64');
    expect(padded.endsWith('=')).toBe(true);
    expect(encodedTwiceHint(Buffer.from(padded, 'latin1'))).toContain('decodes to a CNAB file');
    expect(encodedTwiceHint(pdf)).toBeUndefined();
    expect(encodedTwiceHint(Buffer.from('PK\u0003\u0004 a zip', 'latin1'))).toBeUndefined();
  });
});
