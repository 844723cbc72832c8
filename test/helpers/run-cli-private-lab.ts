// The real CLI with every lab target opened on a private lab of this process (lnblabp<PID>),
// so tests and trials never disturb the shared lab (`lab up`) other people use.
import { buildProgram } from "../../src/cli/main.js";
import { labSize, openPlatform } from "../../src/cli/open-platform.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";

const program = buildProgram({
  run: {
    openPlatform: (target, context) =>
      target.platform === "local"
        ? LocalPlatform.open({
            profile: target.profile,
            customProfiles: context.profiles ?? [],
            labName: privateLabName(),
            mode: context.unshaped ? "unshaped" : "shaped",
            ...labSize(context),
          })
        : openPlatform(target, context),
  },
});
await program.parseAsync(process.argv);
