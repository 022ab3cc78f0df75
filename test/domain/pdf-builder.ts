// PDFs built from the structure ISO 32000-1 lays out (7.5: header, body, cross-reference section,
// trailer; 7.5.6: incremental updates; 7.5.8: cross-reference streams), so that the encryption rule
// is tested on classic and PDF 1.5 files, with and without /Encrypt, and with the name or a mention of
// it in places that are not the trailer. An /Encrypt entry points to a Standard security handler
// dictionary (7.6.3) whose values are made up: readers still see an encrypted file.
import { Buffer } from 'node:buffer';

export interface PdfObject {
  num: number;
  /** The object's value, as PDF text; `stream` makes it a stream with these bytes. */
  body: string;
  stream?: Buffer | string;
}

export interface Revision {
  objects: PdfObject[];
  /** Entries added to the trailer (or cross-reference stream) dictionary, e.g. '/Encrypt 9 0 R'. */
  trailer?: string;
  xref: 'table' | 'stream';
}

export const STANDARD_SECURITY_HANDLER = `<< /Filter /Standard /V 1 /R 2 /O <${'4f'.repeat(32)}> /U <${'55'.repeat(32)}> /P -4 >>`;

/** The objects of a one-page document (catalog 1, pages 2, page 3, content 4). */
export function onePage(content = 'BT /F1 12 Tf 72 720 Td (Contrato) Tj ET', catalogExtra = ''): PdfObject[] {
  return [
    { num: 1, body: `<< /Type /Catalog /Pages 2 0 R${catalogExtra} >>` },
    { num: 2, body: '<< /Type /Pages /Kids [3 0 R] /Count 1 >>' },
    { num: 3, body: '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>' },
    { num: 4, body: '<< >>', stream: content },
  ];
}

function objectBytes(o: PdfObject): Buffer {
  if (o.stream === undefined) return Buffer.from(`${o.num} 0 obj\n${o.body}\nendobj\n`, 'latin1');
  const data = typeof o.stream === 'string' ? Buffer.from(o.stream, 'latin1') : o.stream;
  const dict = o.body.replace(/>>\s*$/, `/Length ${data.length} >>`);
  return Buffer.concat([
    Buffer.from(`${o.num} 0 obj\n${dict}\nstream\n`, 'latin1'),
    data,
    Buffer.from('\nendstream\nendobj\n', 'latin1'),
  ]);
}

/** Consecutive runs of object numbers: the subsections of a cross-reference section. */
function runs(nums: number[]): Array<[number, number[]]> {
  const sorted = [...nums].sort((a, b) => a - b);
  const out: Array<[number, number[]]> = [];
  for (const n of sorted) {
    const last = out[out.length - 1];
    if (last && last[0] + last[1].length === n) last[1].push(n);
    else out.push([n, [n]]);
  }
  return out;
}

/** A PDF of one or more revisions (each after the first an incremental update). */
export function buildPdf(revisions: Revision[], version = '1.7'): Buffer {
  const parts: Buffer[] = [Buffer.from(`%PDF-${version}\n%\xe2\xe3\xcf\xd3\n`, 'latin1')];
  let length = parts[0]?.length ?? 0;
  const push = (b: Buffer) => {
    parts.push(b);
    length += b.length;
  };
  let prev: number | undefined;
  let size = 1;
  revisions.forEach((rev, r) => {
    const offsets = new Map<number, number>();
    for (const o of rev.objects) {
      offsets.set(o.num, length);
      push(objectBytes(o));
      size = Math.max(size, o.num + 1);
    }
    const extra = `${rev.trailer ? ` ${rev.trailer}` : ''}${prev === undefined ? '' : ` /Prev ${prev}`}`;
    const xrefAt = length;
    if (rev.xref === 'table') {
      let text = 'xref\n';
      const nums = [...offsets.keys(), ...(r === 0 ? [0] : [])];
      for (const [first, run] of runs(nums)) {
        text += `${first} ${run.length}\n`;
        for (const n of run) {
          text += n === 0 ? '0000000000 65535 f \n' : `${String(offsets.get(n)).padStart(10, '0')} 00000 n \n`;
        }
      }
      text += `trailer\n<< /Size ${size} /Root 1 0 R${extra} >>\n`;
      push(Buffer.from(text, 'latin1'));
    } else {
      // A cross-reference stream (7.5.8), unfiltered: fields of 1, 4 and 2 bytes; it lists itself.
      const self = size;
      size += 1;
      offsets.set(self, xrefAt);
      const nums = [...offsets.keys(), ...(r === 0 ? [0] : [])];
      const index: number[] = [];
      const rows: Buffer[] = [];
      for (const [first, run] of runs(nums)) {
        index.push(first, run.length);
        for (const n of run) {
          const row = Buffer.alloc(7);
          if (n === 0) row.writeUInt16BE(0xffff, 5);
          else {
            row[0] = 1;
            row.writeUInt32BE(offsets.get(n) ?? 0, 1);
          }
          rows.push(row);
        }
      }
      push(
        objectBytes({
          num: self,
          body: `<< /Type /XRef /Size ${size} /W [1 4 2] /Index [${index.join(' ')}] /Root 1 0 R${extra} >>`,
          stream: Buffer.concat(rows),
        }),
      );
    }
    push(Buffer.from(`startxref\n${xrefAt}\n%%EOF\n`, 'latin1'));
    prev = xrefAt;
  });
  return Buffer.concat(parts);
}
