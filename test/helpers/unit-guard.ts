/**
 * Loaded into every unit-tier test process (scripts/run-tests.mjs): a unit test is pure logic,
 * so starting a process or opening a socket fails it, with the line that moves the file to the
 * tier it belongs to. This is what lets unit files run several at once without disturbing a
 * measurement, and lets a new test file start in the unit tier without being listed anywhere.
 */
import childProcess from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import net from "node:net";
import { relative } from "node:path";

// a test runs compiled from the run's mirror (scripts/compiled-tests.mjs): name its source file
const file = relative(process.cwd(), process.argv[1] ?? "this test file").replace(
  /^\.test-build\/run-\d+\/(.*)\.js$/,
  "$1.ts",
);

function refuse(what: string): never {
  throw new Error(
    `${file} ${what}, but it is in the unit tier (pure logic: no processes, no sockets). ` +
      `List it under "integration" in test/tiers.json ("lab" if it needs root or namespaces); see docs/testing.md`,
  );
}

const spawners = ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"] as const;
for (const name of spawners) {
  Object.assign(childProcess, {
    [name]: (command: unknown) => refuse(`started a process (${String(command)})`),
  });
}
net.Server.prototype.listen = () => refuse("opened a listening socket");
net.Socket.prototype.connect = () => refuse("opened a network connection");
// named ESM imports (`import { spawn } from "node:child_process"`) see the replaced functions too
syncBuiltinESMExports();
