import { z } from "zod";
import data from "./resource-schemas.json" with { type: "json" };

/**
 * The CloudFormation resource schemas of the resource types our stacks use (resource-schemas.json):
 * the permissions each handler needs and the properties a template may set. Facts only, as
 * published; what the operator policy grants of them, and why it leaves the rest out, is
 * schema-permissions.ts.
 *
 * Source: the CloudFormation registry's published schemas (`aws cloudformation describe-type`),
 * as kept in github.com/hashicorp/terraform-provider-awscc at
 * internal/service/cloudformation/schemas/AWS_<Service>_<Type>.json (the commit and dates are the
 * file's `source`). Each entry's `schemaChanged` is the date of the last commit that changed that
 * file.
 */

// as published: a few entries are no IAM action (schema-permissions.ts says which and why)
const actions = z.array(z.string().min(1));
const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);

const resourceSchemaSchema = z
  .object({
    schemaChanged: date,
    /** Top-level property names. */
    properties: z.array(z.string().min(1)),
    handlers: z
      .object({ create: actions, read: actions, update: actions, delete: actions, list: actions })
      .strict(),
    /** What CloudFormation needs to tag the resource (empty: the schema names none). */
    tagging: actions,
  })
  .strict();

const resourceSchemasFileSchema = z
  .object({
    source: z
      .object({
        repository: z.url(),
        path: z.string().min(1),
        commit: z.string().regex(/^[0-9a-f]{40}$/),
        committed: date,
        read: date,
      })
      .strict(),
    schemas: z.record(z.string().regex(/^AWS::\w+::\w+$/), resourceSchemaSchema),
  })
  .strict();

export type ResourceSchema = z.output<typeof resourceSchemaSchema>;

const file = resourceSchemasFileSchema.parse(data);

export const resourceSchemaSource = file.source;
export const resourceSchemas: Record<string, ResourceSchema> = file.schemas;
