// The part of PDFKit's API the tests use (the package ships no declarations).
declare module 'pdfkit' {
  import type { EventEmitter } from 'node:events';

  export interface PdfKitOptions {
    pdfVersion?: '1.3' | '1.4' | '1.5' | '1.6' | '1.7' | '1.7ext3';
    userPassword?: string;
    ownerPassword?: string;
    permissions?: { printing?: 'lowResolution' | 'highResolution'; modifying?: boolean; copying?: boolean };
    compress?: boolean;
  }

  export default class PDFDocument extends EventEmitter {
    constructor(options?: PdfKitOptions);
    info: Record<string, string>;
    text(text: string): this;
    end(): void;
  }
}
