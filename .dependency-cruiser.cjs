// The import rule of docs/architecture.md, checked by `npm run check:deps` (and so by CI):
// each part of src/ imports only the parts below it, and nothing imports in a circle.
const layers = [
  "cli",
  "scheduled-studies",
  "platforms",
  "runner",
  "report",
  "results",
  "plan",
  "agent",
  "probes",
];

/** One rule per layer: it may not import any layer above it. */
const downwardOnly = layers.slice(1).map((layer, index) => ({
  name: `${layer}-imports-only-below`,
  comment: `src/${layer} may import only ${layers.slice(index + 2).join(", ") || "nothing of src"}; it imported a part above it`,
  severity: "error",
  from: { path: `^src/${layer}/` },
  to: { path: `^src/(${layers.slice(0, index + 1).join("|")})/` },
}));

module.exports = {
  forbidden: [
    ...downwardOnly,
    {
      name: "no-circular",
      comment: "an import circle: split the shared part into a file both import",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "src-not-from-tests",
      comment: "src/ must not import test code, benchmarks or scripts",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|scripts)/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default"],
    },
  },
};
