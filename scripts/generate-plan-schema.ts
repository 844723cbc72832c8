// Writes schema/plan.schema.json from the zod plan schema (npm run schema). A test fails when stale.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { planJsonSchemaPath, planJsonSchemaText } from "../src/plan/plan-json-schema.js";

mkdirSync(dirname(planJsonSchemaPath), { recursive: true });
writeFileSync(planJsonSchemaPath, planJsonSchemaText());
console.log(`wrote ${planJsonSchemaPath}`);
