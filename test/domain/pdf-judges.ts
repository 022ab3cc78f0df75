// Outside judges of the encryption rule: PDFKit writes really encrypted PDFs (its Standard security
// handler: RC4 40 and 128 bits, AES 128 and 256), and pdf.js, Mozilla's PDF reader, says whether a
// file is encrypted the way a reader finds out: from the trailer startxref leads to.
import { Buffer } from 'node:buffer';
import PDFDocument, { type PdfKitOptions } from 'pdfkit';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** A one-page PDF written by PDFKit with `options` (passwords, pdfVersion, compress). */
export function pdfkitFile(options: PdfKitOptions, text = 'Cédula de crédito bancário'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument(options);
    const parts: Buffer[] = [];
    doc.on('data', (b: Buffer) => parts.push(b));
    doc.on('end', () => resolve(Buffer.concat(parts)));
    doc.on('error', reject);
    doc.info.Title = 'trailer << /Encrypt 1 0 R >>';
    doc.text(text);
    doc.end();
  });
}

/** pdf.js's verdict: the document opens with an encryption filter, or asks for a password. */
export async function pdfjsSaysEncrypted(bytes: Buffer): Promise<boolean> {
  try {
    const doc = await getDocument({ data: new Uint8Array(bytes), verbosity: 0, isEvalSupported: false }).promise;
    const { info } = await doc.getMetadata();
    await doc.destroy();
    return ((info as { EncryptFilterName?: string | null }).EncryptFilterName ?? null) !== null;
  } catch (err) {
    if (err instanceof Error && err.name === 'PasswordException') return true;
    throw err;
  }
}
