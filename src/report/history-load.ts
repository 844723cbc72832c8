import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { manifestFile, readManifest, readRecords } from "../results/run-directory.js";
import type { HistoryRun } from "./history.js";

/**
 * The runs behind `report --history DIR...`: each DIR is a run directory, or a directory of run
 * directories (runs/, where `runs pull` puts scheduled runs).
 */
export async function loadHistoryRuns(dirs: string[]): Promise<HistoryRun[]> {
  const runDirs: string[] = [];
  for (const dir of dirs) {
    if (await isRunDirectory(dir)) {
      runDirs.push(dir);
      continue;
    }
    let entries: string[];
    try {
      entries = (await readdir(dir)).sort();
    } catch {
      throw new Error(`--history: ${dir} is neither a run directory nor a directory of runs`);
    }
    for (const entry of entries) if (await isRunDirectory(join(dir, entry))) runDirs.push(join(dir, entry));
  }
  if (runDirs.length === 0)
    throw new Error(`--history: no run directories (with ${manifestFile}) in ${dirs.join(", ")}`);
  return Promise.all(
    [...new Set(runDirs)].map(async (dir) => ({
      manifest: await readManifest(dir),
      records: (await readRecords(dir)).records,
    })),
  );
}

async function isRunDirectory(dir: string): Promise<boolean> {
  return stat(join(dir, manifestFile)).then(
    (s) => s.isFile(),
    () => false,
  );
}
