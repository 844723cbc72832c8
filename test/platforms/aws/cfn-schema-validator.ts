// biome-ignore-all lint/suspicious/noExplicitAny: walks untyped JSON documents and raw SDK transport objects
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { gunzipSync } from "node:zlib";

/**
 * Validates a CloudFormation template against AWS's published resource schemas as shipped in
 * @aws-cdk/aws-service-spec (db.json.gz: every resource type with its properties, their types,
 * required flags, allowed values and attributes, imported from the CloudFormation registry).
 * Checks every resource type and property: unknown types and properties are errors, required
 * properties must be present, values must have the schema's type, and every Ref / Fn::GetAtt /
 * Fn::Sub reference must name a resource, parameter or attribute that exists.
 */
type SpecType =
  | { type: "string"; allowedValues?: unknown[] }
  | { type: "integer" | "number"; allowedValues?: unknown[] }
  | { type: "boolean" | "json" | "date-time" | "tag" }
  | { type: "ref"; reference: { $ref: string } }
  | { type: "array" | "map"; element: SpecType }
  | { type: "union"; types: SpecType[] };
interface SpecProperty {
  type: SpecType;
  required?: boolean;
}
interface SpecEntity {
  $id: string;
  name: string;
  cloudFormationType?: string;
  properties: Record<string, SpecProperty>;
  attributes?: Record<string, unknown>;
}

let cache: { resources: Map<string, SpecEntity>; types: Map<string, SpecEntity> } | null = null;
function loadSpec() {
  if (cache) return cache;
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve("@aws-cdk/aws-service-spec/package.json");
  const db = JSON.parse(
    gunzipSync(readFileSync(packageJson.replace(/package\.json$/, "db.json.gz"))).toString(),
  );
  const resources = new Map<string, SpecEntity>();
  for (const entity of db.schema.resource.entities as SpecEntity[])
    resources.set(entity.cloudFormationType as string, entity);
  const types = new Map<string, SpecEntity>();
  for (const entity of db.schema.typeDefinition.entities as SpecEntity[]) types.set(entity.$id, entity);
  cache = { resources, types };
  return cache;
}

export function specAttributes(resourceType: string): string[] {
  return Object.keys(loadSpec().resources.get(resourceType)?.attributes ?? {});
}

const pseudoParameters = new Set([
  "AWS::AccountId",
  "AWS::Region",
  "AWS::Partition",
  "AWS::StackName",
  "AWS::StackId",
  "AWS::URLSuffix",
  "AWS::NoValue",
  "AWS::NotificationARNs",
]);
const intrinsicNames = new Set([
  "Ref",
  "Fn::GetAtt",
  "Fn::Sub",
  "Fn::Join",
  "Fn::Base64",
  "Fn::Select",
  "Fn::Split",
  "Fn::If",
  "Fn::ImportValue",
  "Fn::GetAZs",
]);

export function validateTemplate(template: any): string[] {
  const { resources: specResources, types } = loadSpec();
  const errors: string[] = [];
  const resources: Record<string, any> = template.Resources ?? {};
  const parameters: Record<string, any> = template.Parameters ?? {};
  for (const key of Object.keys(template))
    if (
      ![
        "AWSTemplateFormatVersion",
        "Description",
        "Parameters",
        "Resources",
        "Outputs",
        "Conditions",
        "Mappings",
        "Metadata",
      ].includes(key)
    )
      errors.push(`template: unknown section ${key}`);
  if (Object.keys(resources).length === 0) errors.push("template: no resources");

  const checkReference = (path: string, name: string, attribute?: string) => {
    if (attribute === undefined && (pseudoParameters.has(name) || name in parameters)) return;
    const target = resources[name];
    if (!target) {
      errors.push(`${path}: reference to unknown resource or parameter ${name}`);
      return;
    }
    if (attribute !== undefined && !specAttributes(target.Type).includes(attribute))
      errors.push(`${path}: ${target.Type} has no attribute ${attribute}`);
  };

  /** Checks an intrinsic function; returns false when `value` is not one. */
  const checkIntrinsic = (path: string, value: any): boolean => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
    const keys = Object.keys(value);
    if (keys.length !== 1 || !intrinsicNames.has(keys[0] as string)) return false;
    const name = keys[0] as string;
    const argument = value[name];
    switch (name) {
      case "Ref":
        if (typeof argument !== "string") errors.push(`${path}: Ref needs a name`);
        else checkReference(path, argument);
        break;
      case "Fn::GetAtt":
        if (!Array.isArray(argument) || argument.length !== 2)
          errors.push(`${path}: Fn::GetAtt needs [resource, attribute]`);
        else checkReference(path, argument[0], argument[1]);
        break;
      case "Fn::Sub": {
        const text = Array.isArray(argument) ? argument[0] : argument;
        if (typeof text !== "string") {
          errors.push(`${path}: Fn::Sub needs a string`);
          break;
        }
        for (const match of text.matchAll(/\$\{([^}!][^}]*)\}/g)) {
          const [resource, ...attribute] = (match[1] as string).split(".");
          checkReference(path, resource as string, attribute.length > 0 ? attribute.join(".") : undefined);
        }
        break;
      }
      case "Fn::Base64":
        if (!(typeof argument === "string" || checkIntrinsic(`${path}.Fn::Base64`, argument)))
          errors.push(`${path}: Fn::Base64 needs a string`);
        break;
      default:
        checkAny(`${path}.${name}`, argument);
    }
    return true;
  };

  /** Free JSON (policy documents): only intrinsics inside are checked. */
  const checkAny = (path: string, value: any) => {
    if (checkIntrinsic(path, value)) return;
    if (Array.isArray(value)) {
      for (const [index, item] of value.entries()) checkAny(`${path}[${index}]`, item);
    } else if (typeof value === "object" && value !== null)
      for (const [key, item] of Object.entries(value)) checkAny(`${path}.${key}`, item);
  };

  const checkValue = (path: string, type: SpecType, value: any): void => {
    if (checkIntrinsic(path, value)) {
      if (type.type === "array" || type.type === "map" || type.type === "ref" || type.type === "boolean")
        if (!("Fn::If" in value || "Ref" in value))
          errors.push(`${path}: an intrinsic producing a string where ${type.type} is expected`);
      return;
    }
    switch (type.type) {
      case "string":
        if (typeof value !== "string") errors.push(`${path}: expected string, got ${JSON.stringify(value)}`);
        else if (type.allowedValues && !type.allowedValues.includes(value))
          errors.push(`${path}: "${value}" not in ${JSON.stringify(type.allowedValues)}`);
        break;
      case "date-time":
        if (typeof value !== "string") errors.push(`${path}: expected date-time string`);
        break;
      case "integer":
      case "number":
        if (typeof value !== "number" || (type.type === "integer" && !Number.isInteger(value)))
          errors.push(`${path}: expected ${type.type}, got ${JSON.stringify(value)}`);
        else if (type.allowedValues && !type.allowedValues.includes(value))
          errors.push(`${path}: ${value} not in ${JSON.stringify(type.allowedValues)}`);
        break;
      case "boolean":
        if (typeof value !== "boolean")
          errors.push(`${path}: expected boolean, got ${JSON.stringify(value)}`);
        break;
      case "json":
        if (typeof value !== "object" || value === null) errors.push(`${path}: expected a JSON object`);
        else checkAny(path, value);
        break;
      case "tag":
        if (typeof value !== "object" || value === null) errors.push(`${path}: expected a tag`);
        else {
          for (const key of Object.keys(value))
            if (key !== "Key" && key !== "Value") errors.push(`${path}: unknown tag field ${key}`);
          checkValue(`${path}.Key`, { type: "string" }, value.Key);
          checkValue(`${path}.Value`, { type: "string" }, value.Value);
        }
        break;
      case "array":
        if (!Array.isArray(value)) errors.push(`${path}: expected array`);
        else for (const [index, item] of value.entries()) checkValue(`${path}[${index}]`, type.element, item);
        break;
      case "map":
        if (typeof value !== "object" || value === null || Array.isArray(value))
          errors.push(`${path}: expected map`);
        else
          for (const [key, item] of Object.entries(value)) checkValue(`${path}.${key}`, type.element, item);
        break;
      case "union": {
        const before = errors.length;
        const ok = type.types.some((candidate) => {
          const mark = errors.length;
          checkValue(path, candidate, value);
          const fits = errors.length === mark;
          errors.length = mark;
          return fits;
        });
        errors.length = before;
        if (!ok) errors.push(`${path}: value fits none of the union's types`);
        break;
      }
      case "ref": {
        const definition = types.get(type.reference.$ref);
        if (!definition) errors.push(`${path}: schema type ${type.reference.$ref} missing`);
        else checkObject(path, definition.properties, value);
        break;
      }
    }
  };

  const checkObject = (path: string, properties: Record<string, SpecProperty>, value: any) => {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      errors.push(`${path}: expected an object`);
      return;
    }
    for (const [key, item] of Object.entries(value)) {
      const property = properties[key];
      if (!property) errors.push(`${path}: unknown property ${key}`);
      else checkValue(`${path}.${key}`, property.type, item);
    }
    for (const [key, property] of Object.entries(properties))
      if (property.required && !(key in value)) errors.push(`${path}: required property ${key} missing`);
  };

  for (const [logicalId, resource] of Object.entries(resources)) {
    const path = `Resources.${logicalId}`;
    if (!/^[A-Za-z0-9]+$/.test(logicalId)) errors.push(`${path}: logical id must be alphanumeric`);
    for (const key of Object.keys(resource))
      if (
        ![
          "Type",
          "Properties",
          "DependsOn",
          "DeletionPolicy",
          "UpdateReplacePolicy",
          "Condition",
          "Metadata",
        ].includes(key)
      )
        errors.push(`${path}: unknown resource attribute ${key}`);
    const spec = specResources.get(resource.Type);
    if (!spec) {
      errors.push(`${path}: unknown resource type ${resource.Type}`);
      continue;
    }
    checkObject(`${path}.Properties`, spec.properties, resource.Properties ?? {});
    for (const dependency of resource.DependsOn ?? [])
      if (!resources[dependency]) errors.push(`${path}: DependsOn unknown resource ${dependency}`);
  }
  for (const [name, parameter] of Object.entries(parameters))
    if (typeof parameter.Type !== "string") errors.push(`Parameters.${name}: Type missing`);
  for (const [name, output] of Object.entries<any>(template.Outputs ?? {})) {
    if (!("Value" in output)) errors.push(`Outputs.${name}: Value missing`);
    else if (typeof output.Value !== "string") {
      if (!checkIntrinsic(`Outputs.${name}.Value`, output.Value))
        errors.push(`Outputs.${name}: Value must be a string or intrinsic`);
    }
  }
  return errors;
}
