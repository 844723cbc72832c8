import { z } from "zod";
import { planSchema } from "./plan-schema.js";

/** Where the generated JSON Schema for plan files lives (for editors: `# yaml-language-server: $schema=...`). */
export const planJsonSchemaPath = "schema/plan.schema.json";

/** The JSON Schema of a plan file as a user writes it (defaults make fields optional). */
export function planJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(planSchema, { io: "input", target: "draft-2020-12" }) as Record<
    string,
    unknown
  >;
  return {
    ...schema,
    $id: "https://github.com/lambda-netbench/lambda-netbench/schema/plan.schema.json",
    title: "lambda-netbench plan",
  };
}

export function planJsonSchemaText(): string {
  return `${JSON.stringify(planJsonSchema(), null, 2)}\n`;
}
