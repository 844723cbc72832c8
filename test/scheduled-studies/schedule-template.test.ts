// biome-ignore-all lint/suspicious/noExplicitAny: asserts on the template as plain JSON
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import aslValidator from "asl-validator";
import { buildProgram } from "../../src/cli/main.js";
import { validatePlan } from "../../src/plan/load-plan.js";
import { presets } from "../../src/plan/presets.js";
import {
  addScheduleStack,
  keepScheduleStacks,
  removeScheduleStack,
  scheduleStacksFromOutputs,
} from "../../src/platforms/aws/nested-stacks.js";
import { buildStackTemplate } from "../../src/platforms/aws/stack-template.js";
import { planSchedule } from "../../src/scheduled-studies/schedule-plan.js";
import {
  buildScheduleTemplate,
  type ScheduleTemplateOptions,
  scheduleDefinition,
} from "../../src/scheduled-studies/schedule-template.js";
import { chooseMapMode } from "../../src/scheduled-studies/state-machine-definition.js";
import { validateTemplate } from "../platforms/aws/cfn-schema-validator.js";

const base: ScheduleTemplateOptions = {
  name: "daily",
  expression: "rate(1 day)",
  timezone: "UTC",
  variants: [
    { memoryMb: 1024, arch: "arm64" },
    { memoryMb: 10240, arch: "arm64" },
  ],
  maxConcurrency: 4,
  mode: "inline",
  agentTimeoutSeconds: 900,
};

function statements(template: any): Array<{ role: string; statement: any }> {
  const found: Array<{ role: string; statement: any }> = [];
  for (const [id, resource] of Object.entries<any>(template.Resources)) {
    if (resource.Type !== "AWS::IAM::Role") continue;
    for (const policy of resource.Properties.Policies ?? [])
      for (const statement of policy.PolicyDocument.Statement) found.push({ role: id, statement });
  }
  return found;
}

const asArray = (value: unknown) => (Array.isArray(value) ? value : [value]);

describe("the scheduled study's state machine and template", () => {
  for (const mode of ["inline", "distributed"] as const) {
    test(`${mode} Map: the definition passes asl-validator`, () => {
      const definition = scheduleDefinition({ ...base, mode });
      const result = aslValidator(definition as any);
      assert.equal(result.isValid, true, result.errorsText("\n"));
      const measure = definition.States.Measure as any;
      assert.equal(measure.MaxConcurrency, 4, "MaxConcurrency = parallelism");
      assert.equal(measure.ItemProcessor.ProcessorConfig.Mode, mode === "inline" ? "INLINE" : "DISTRIBUTED");
      if (mode === "distributed") {
        assert.equal(measure.ItemReader.Resource, "arn:aws:states:::s3:getObject");
        assert.equal(measure.ItemReader.Parameters.Key, "schedules/daily/tasks.json");
      }
      const invoke = measure.ItemProcessor.States.MeasureInvoke;
      assert.ok(invoke.Retry[0].ErrorEquals.includes("Lambda.TooManyRequestsException"));
      assert.equal(invoke.Retry[0].BackoffRate, 2);
      assert.equal(invoke.Retry[0].JitterStrategy, "FULL");
    });

    test(`${mode} Map: the template passes the CloudFormation resource schemas, definition as plain JSON`, () => {
      const template = buildScheduleTemplate({ ...base, mode }) as any;
      assert.deepEqual(validateTemplate(template), []);
      const definition = template.Resources.StateMachine.Properties.Definition;
      assert.equal(template.Resources.StateMachine.Properties.DefinitionString, undefined);
      assert.deepEqual(definition, scheduleDefinition({ ...base, mode }));
      const text = JSON.stringify(definition);
      assert.ok(
        !text.includes("Fn::") && !text.includes("${"),
        "no intrinsic function or placeholder in the definition",
      );
    });

    test(`${mode} Map: least privilege (no StartExecution on *, no wildcard action or resource)`, () => {
      const template = buildScheduleTemplate({ ...base, mode }) as any;
      for (const { role, statement } of statements(template)) {
        assert.equal(statement.Effect, "Allow");
        for (const action of asArray(statement.Action))
          assert.ok(!String(action).includes("*"), `${role}: ${action}`);
        for (const resource of asArray(statement.Resource))
          assert.notEqual(resource, "*", `${role} ${statement.Sid}: Resource *`);
        if (asArray(statement.Action).includes("states:StartExecution")) {
          const resources = asArray(statement.Resource).map((r) => JSON.stringify(r));
          assert.ok(
            resources.every(
              (r) => r === '{"Ref":"StateMachine"}' || r.endsWith(':stateMachine:lambda-netbench-daily"}'),
            ),
            `${role}: StartExecution only on this state machine (${resources})`,
          );
        }
      }
      const scheduler = statements(template).filter((s) => s.role === "SchedulerRole");
      assert.deepEqual(
        scheduler.map((s) => [s.statement.Action, s.statement.Resource]),
        [["states:StartExecution", { Ref: "StateMachine" }]],
        "the schedule's role may only start its state machine",
      );
      const invoke = statements(template).find((s) => s.statement.Sid === "InvokeTheScheduleAliasesOnly");
      assert.deepEqual(
        invoke?.statement.Resource.map((r: any) => r["Fn::Sub"].split(":function:")[1]),
        ["lambda-netbench-agent:s-daily-m1024-arm64", "lambda-netbench-agent:s-daily-m10240-arm64"],
      );
      const trust = template.Resources.SchedulerRole.Properties.AssumeRolePolicyDocument.Statement[0];
      assert.deepEqual(trust.Principal, { Service: "scheduler.amazonaws.com" });
      assert.ok(trust.Condition.StringEquals["aws:SourceAccount"], "confused-deputy guard");
      assert.equal(template.Resources.Schedule.Properties.ScheduleExpression, "rate(1 day)");
      assert.deepEqual(template.Resources.Schedule.Properties.Target.Arn, { Ref: "StateMachine" });
    });
  }

  test("Distributed Map only where it pays", () => {
    assert.equal(chooseMapMode(50_000, 42, 10), "inline");
    assert.equal(chooseMapMode(250_000, 42, 10), "distributed", "task list beyond the 256 KiB state");
    assert.equal(chooseMapMode(50_000, 42, 100), "distributed", "more than 40 at once");
    assert.equal(chooseMapMode(150_000, 5_000, 10), "distributed", "execution history");
    const seed = validatePlan({ ...presets.seed, targets: [{ platform: "aws", region: "us-west-2" }] });
    const planned = planSchedule({
      name: "seed",
      expression: "rate(1 day)",
      timezone: "UTC",
      plan: seed,
      parallelism: 1,
      agentTimeoutSeconds: 900,
    });
    assert.equal(planned.templateOptions.mode, "inline", "the seed study is small");
  });

  test("the region stack keeps its schedules through deploy (nested stack described by an output)", () => {
    const region = buildStackTemplate({
      agentCodeKey: "agent/abc.zip",
      arch: "arm64",
      memoryMb: 2048,
      timeoutSeconds: 900,
      server: null,
    });
    const ref = {
      name: "daily",
      templateKey: "schedules/daily/template-0123456789abcdef.json",
      recorderCodeKey: "agent/recorder-1.zip",
    };
    const withSchedule = addScheduleStack(region, ref) as any;
    assert.deepEqual(validateTemplate(withSchedule), []);
    assert.equal(withSchedule.Resources.ScheduleDaily.Type, "AWS::CloudFormation::Stack");
    const outputs = Object.fromEntries(
      Object.entries<any>(withSchedule.Outputs).map(([key, output]) => [
        key,
        typeof output.Value === "string" ? output.Value : "x",
      ]),
    );
    assert.deepEqual(scheduleStacksFromOutputs(outputs), [ref]);
    // deploy rebuilds the region template from its options: the hook puts the schedule back
    assert.deepEqual(keepScheduleStacks(region, outputs), withSchedule);
    assert.deepEqual(keepScheduleStacks(region, {}), region);
    assert.deepEqual(removeScheduleStack(withSchedule, "daily"), region);
  });

  test("schedule create --print-template prints the template offline, after checking the input", async () => {
    const out: string[] = [];
    const log = console.log;
    console.log = (...args: unknown[]) => out.push(args.join(" "));
    try {
      await buildProgram().parseAsync([
        "node",
        "lambda-netbench",
        "schedule",
        "create",
        "--region",
        "us-west-2",
        "--preset",
        "seed",
        "--every",
        "cron(0 6 ? * MON-FRI *)",
        "--parallelism",
        "2",
        "--print-template",
      ]);
    } finally {
      console.log = log;
    }
    const template = JSON.parse(out.join("\n"));
    assert.deepEqual(validateTemplate(template), []);
    assert.equal(template.Resources.Schedule.Properties.ScheduleExpression, "cron(0 6 ? * MON-FRI *)");
    assert.equal(template.Resources.StateMachine.Properties.Definition.States.Measure.MaxConcurrency, 2);
    assert.equal(aslValidator(template.Resources.StateMachine.Properties.Definition).isValid, true);
  });
});
