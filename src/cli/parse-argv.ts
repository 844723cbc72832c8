import type { Command } from "commander";
import { AwsInputError } from "../platforms/aws/aws-input-error.js";

/**
 * Runs a program on argv with the CLI's exit codes: help and version exit 0 (commander printed
 * them), usage errors and bad input (which flag, what is allowed) exit 2; anything else throws.
 */
export async function parseArgv(program: Command, argv: string[]): Promise<void> {
  try {
    await program.parseAsync(argv);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "commander.helpDisplayed" || code === "commander.version" || code === "commander.help")
      return;
    if (typeof code === "string" && code.startsWith("commander.")) {
      process.exitCode = 2;
      return;
    }
    if (error instanceof AwsInputError) {
      console.error(`lambda-netbench: ${error.message}`);
      process.exitCode = 2;
      return;
    }
    throw error;
  }
}
