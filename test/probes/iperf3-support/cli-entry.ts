// Runs the lambda-netbench CLI from source (node --import tsx), e.g. inside a network namespace.
import { main } from "../../../src/cli/main.js";

await main(process.argv);
