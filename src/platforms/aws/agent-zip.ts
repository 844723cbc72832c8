import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { crc32, deflateRawSync } from "node:zlib";
import { agentCodePrefix } from "./naming.js";

/**
 * Writes a zip archive (PKWARE APPNOTE 6.3: local headers, deflated data, central directory,
 * end record) with Node's zlib, for the Lambda deployment package: no dependency, and the
 * same bytes for the same input (fixed timestamps), so its hash names the code version.
 */
export interface ZipEntry {
  name: string;
  data: Buffer;
  /** Unix permission bits; Lambda needs the file readable by others (0644). */
  mode?: number;
}

// 1980-01-01 00:00 in MS-DOS format: reproducible archives
const dosTime = 0;
const dosDate = (0 << 9) | (1 << 5) | 1;

interface StoredEntry {
  name: Buffer;
  compressed: Buffer;
  checksum: number;
  bytes: number;
}

/**
 * The fields a local header and its central directory header share, in the same order in both
 * (APPNOTE 4.3.7 and 4.3.12, "version needed" to "extra field length"): 26 bytes at `at`.
 */
function writeSharedFields(header: Buffer, at: number, entry: StoredEntry): void {
  header.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
  header.writeUInt16LE(0x0800, at + 2); // UTF-8 names
  header.writeUInt16LE(8, at + 4); // deflate
  header.writeUInt16LE(dosTime, at + 6);
  header.writeUInt16LE(dosDate, at + 8);
  header.writeUInt32LE(entry.checksum, at + 10);
  header.writeUInt32LE(entry.compressed.length, at + 14);
  header.writeUInt32LE(entry.bytes, at + 18);
  header.writeUInt16LE(entry.name.length, at + 22);
  header.writeUInt16LE(0, at + 24); // extra
}

function localHeader(entry: StoredEntry): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  writeSharedFields(header, 4, entry);
  return header;
}

function centralHeader(entry: StoredEntry, mode: number, localOffset: number): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, spec 2.0: external attrs carry the mode
  writeSharedFields(header, 6, entry);
  header.writeUInt16LE(0, 32); // comment
  header.writeUInt16LE(0, 34); // disk
  header.writeUInt16LE(0, 36); // internal attrs
  header.writeUInt32LE(((mode | 0o100000) << 16) >>> 0, 38); // regular file
  header.writeUInt32LE(localOffset, 42);
  return header;
}

export function buildZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const stored: StoredEntry = {
      name: Buffer.from(entry.name, "utf8"),
      compressed: deflateRawSync(entry.data, { level: 9 }),
      checksum: crc32(entry.data),
      bytes: entry.data.length,
    };
    const local = localHeader(stored);
    locals.push(local, stored.name, stored.compressed);
    centrals.push(centralHeader(stored, entry.mode ?? 0o644, offset), stored.name);
    offset += local.length + stored.name.length + stored.compressed.length;
  }
  const centralSize = centrals.reduce((sum, part) => sum + part.length, 0);
  if (offset > 0xffffffff || entries.length > 0xffff) throw new Error("zip too large (zip64 not supported)");
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0, 4);
  end.writeUInt16LE(0, 6);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(0, 20);
  return Buffer.concat([...locals, ...centrals, end]);
}

/** A deployment package: its bytes, their SHA-256 and the bucket key named by it. */
export interface CodePackage {
  zip: Buffer;
  sha256: string;
  /** `<prefix><sha256>.zip`: a new bundle gets a new key, so a stack update sees the change. */
  key: string;
}

/** Zips one bundled file (from `npm run build`) under the name its handler expects. */
export function codePackage(bundlePath: URL, fileName: string, keyPrefix: string, what: string): CodePackage {
  let source: Buffer;
  try {
    source = readFileSync(bundlePath);
  } catch {
    throw new Error(`${what} bundle not found at ${String(bundlePath)}: run \`npm run build\` first`);
  }
  const zip = buildZip([{ name: fileName, data: source }]);
  const sha256 = createHash("sha256").update(zip).digest("hex");
  return { zip, sha256, key: `${keyPrefix}${sha256}.zip` };
}

/** The agent's deployment package: dist/agent/index.mjs as index.mjs, at agent/<sha256>.zip. */
export function buildAgentZip(
  bundlePath = new URL("../../../dist/agent/index.mjs", import.meta.url),
): CodePackage {
  return codePackage(bundlePath, "index.mjs", agentCodePrefix, "agent");
}
