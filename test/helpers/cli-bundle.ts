import { chmodSync, cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/**
 * The CLI from source as one ES module in a directory of its own that every user may read, for
 * tests that run it as another user (`nobody`). That user cannot load the CLI from the checkout
 * when the checkout sits under a directory only root may enter (a clone under `mktemp -d` or in
 * /root: "Cannot find package 'tsx'"). The one native package (@resvg/resvg-js, for charts)
 * cannot be bundled and is copied beside the bundle.
 */
export interface CliBundle {
  /** argv after `process.execPath`. */
  argv(args: string[]): string[];
  /** The directory holding the bundle: a working directory the other user can enter. */
  dir: string;
  remove(): void;
}

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const NATIVE_PACKAGES = "@resvg";

export async function bundleCli(): Promise<CliBundle> {
  const dir = mkdtempSync(join(tmpdir(), "lnb-cli-bundle-"));
  try {
    const outfile = join(dir, "cli.mjs");
    await build({
      entryPoints: [join(repoRoot, "test/helpers/run-cli.ts")],
      outfile,
      bundle: true,
      platform: "node",
      target: "node20",
      format: "esm",
      external: [`${NATIVE_PACKAGES}/*`],
      // bundled CommonJS dependencies call require(): give the ES module one
      banner: {
        js: "import { createRequire as __lnbRequire } from 'node:module'; const require = __lnbRequire(import.meta.url);",
      },
      logLevel: "warning",
    });
    cpSync(join(repoRoot, "node_modules", NATIVE_PACKAGES), join(dir, "node_modules", NATIVE_PACKAGES), {
      recursive: true,
      dereference: true,
    });
    chmodSync(dir, 0o755);
    return {
      argv: (args) => [outfile, ...args],
      dir,
      remove: () => rmSync(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
