/**
 * argv (after `process.execPath`) that runs the lambda-netbench CLI from source through tsx
 * (test/helpers/run-cli.ts), so CLI tests need no build. Paths are relative to the repo root,
 * the directory tests run from.
 */
export function cliArgv(args: string[]): string[] {
  return ["--import", "tsx", "test/helpers/run-cli.ts", ...args];
}
