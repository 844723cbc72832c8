// Registers module-trace-hooks.mjs for the process it is imported into (node --import).
import { register } from "node:module";

register("./module-trace-hooks.mjs", import.meta.url);
