// Bundles the agent (Lambda handler) into one ES module for the nodejs22.x runtime:
// dist/agent/index.mjs, loadable with only that file on disk.
import { build } from "esbuild";

await build({
  entryPoints: ["src/agent/lambda.ts"],
  outfile: "dist/agent/index.mjs",
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  // Some bundled CommonJS dependencies call require(); give the ESM bundle one.
  banner: {
    js: "import { createRequire as __lnbRequire } from 'node:module'; const require = __lnbRequire(import.meta.url);",
  },
  minify: false,
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
});
console.log("agent bundle: dist/agent/index.mjs");

// The scheduled studies' recorder (src/scheduled-studies/recorder-lambda.ts): its own zip,
// so the agent stays free of the AWS SDK; the nodejs22.x runtime provides the SDK it uses.
await build({
  entryPoints: ["src/scheduled-studies/recorder-lambda.ts"],
  outfile: "dist/agent/recorder.mjs",
  bundle: true,
  platform: "node",
  target: "node22",
  format: "esm",
  external: ["@aws-sdk/*", "@smithy/*"],
  banner: {
    js: "import { createRequire as __lnbRequire } from 'node:module'; const require = __lnbRequire(import.meta.url);",
  },
  minify: false,
  sourcemap: false,
  legalComments: "none",
  logLevel: "warning",
});
console.log("recorder bundle: dist/agent/recorder.mjs");
