// Containers that carry a PDF inside them, built byte by byte from their formats: a ZIP archive with
// the PDF stored (method 0, as APPNOTE.TXT section 4.3 lays out local header, central directory and
// end record) and a CMS SignedData envelope (RFC 5652) in DER with the PDF encapsulated, as an
// attached ICP-Brasil signature (.p7s) carries it.
import { Buffer } from 'node:buffer';

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A ZIP archive holding `file` stored (not compressed) under `name`. */
export function storedZip(name: string, file: Buffer): Buffer {
  const nameBytes = Buffer.from(name, 'latin1');
  const crc = crc32(file);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed 2.0
  local.writeUInt16LE(0, 6); // flags
  local.writeUInt16LE(0, 8); // method 0: stored
  local.writeUInt16LE(0x6000, 10); // 12:00
  local.writeUInt16LE(0x5b77, 12); // 2025-11-23
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(file.length, 18);
  local.writeUInt32LE(file.length, 22);
  local.writeUInt16LE(nameBytes.length, 26);
  local.writeUInt16LE(0, 28);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4); // made by 2.0
  local.copy(central, 6, 4, 30); // version needed .. name length, extra length
  // comment length, disk, internal and external attributes stay 0; local header offset 0.
  const entry = Buffer.concat([local, nameBytes, file]);
  const directory = Buffer.concat([central, nameBytes]);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(entry.length, 16);
  return Buffer.concat([entry, directory, end]);
}

function der(tag: number, content: Buffer): Buffer {
  const n = content.length;
  const length =
    n < 0x80
      ? Buffer.from([n])
      : n < 0x100
        ? Buffer.from([0x81, n])
        : n < 0x10000
          ? Buffer.from([0x82, n >> 8, n & 0xff])
          : Buffer.from([0x83, n >> 16, (n >> 8) & 0xff, n & 0xff]);
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const seq = (...parts: Buffer[]) => der(0x30, Buffer.concat(parts));
const set = (...parts: Buffer[]) => der(0x31, Buffer.concat(parts));
const explicit0 = (...parts: Buffer[]) => der(0xa0, Buffer.concat(parts));
const oid = (hex: string) => der(0x06, Buffer.from(hex, 'hex'));
const int = (n: number) => der(0x02, Buffer.from([n]));

const ID_SIGNED_DATA = '2a864886f70d010702'; // 1.2.840.113549.1.7.2
const ID_DATA = '2a864886f70d010701'; // 1.2.840.113549.1.7.1
const SHA256 = '608648016503040201'; // 2.16.840.1.101.3.4.2.1
const RSA = '2a864886f70d010101'; // 1.2.840.113549.1.1.1

/**
 * A CMS ContentInfo of type SignedData with `content` encapsulated (an attached signature) and one
 * signer whose 256-byte RSA signature value is a placeholder: the structure is what a signing tool
 * writes, the signature is not meant to verify.
 */
export function cmsSignedData(content: Buffer): Buffer {
  const algorithm = seq(oid(SHA256));
  const issuer = seq(set(seq(oid('550403'), der(0x13, Buffer.from('AC TESTE SANDBOX')))));
  const signer = seq(
    int(1),
    seq(issuer, int(7)), // issuerAndSerialNumber
    algorithm,
    seq(oid(RSA), der(0x05, Buffer.alloc(0))),
    der(0x04, Buffer.alloc(256, 0x5a)),
  );
  const signedData = seq(
    int(1),
    set(algorithm),
    seq(oid(ID_DATA), explicit0(der(0x04, content))),
    set(signer),
  );
  return seq(oid(ID_SIGNED_DATA), explicit0(signedData));
}
