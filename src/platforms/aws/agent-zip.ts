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

export function buildZip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const compressed = deflateRawSync(entry.data, { level: 9 });
    const checksum = crc32(entry.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed: 2.0 (deflate)
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(8, 8); // deflate
    local.writeUInt16LE(dosTime, 10);
    local.writeUInt16LE(dosDate, 12);
    local.writeUInt32LE(checksum, 14);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(entry.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(0, 28);
    locals.push(local, name, compressed);

    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 20, 4); // made by Unix, spec 2.0: external attrs carry the mode
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(8, 10);
    central.writeUInt16LE(dosTime, 12);
    central.writeUInt16LE(dosDate, 14);
    central.writeUInt32LE(checksum, 16);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(entry.data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt16LE(0, 30); // extra
    central.writeUInt16LE(0, 32); // comment
    central.writeUInt16LE(0, 34); // disk
    central.writeUInt16LE(0, 36); // internal attrs
    central.writeUInt32LE((((entry.mode ?? 0o644) | 0o100000) << 16) >>> 0, 38); // regular file
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += local.length + name.length + compressed.length;
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
