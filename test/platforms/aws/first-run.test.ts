// biome-ignore-all lint/suspicious/noExplicitAny: walks an untyped CloudFormation template
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";
import { validatePlan } from "../../../src/plan/load-plan.js";
import { iperf3VersionAdvice, minimumIperf3Version } from "../../../src/platforms/aws/iperf3-version.js";
import { type ServerTemplateOptions, serverResources } from "../../../src/platforms/aws/server-template.js";
import { serverUserData } from "../../../src/platforms/aws/server-user-data.js";
import { estimatePlan } from "../../../src/runner/run-estimate.js";
import { buildScheduleTemplate } from "../../../src/scheduled-studies/schedule-template.js";

/** What breaks a first run in a fresh account, each found by review and pinned here. */

const server: ServerTemplateOptions = {
  instanceType: "c8gn.large",
  ports: 1,
  generation: 1,
  expiresAt: "2026-12-01T18:00:00.000Z",
  idleTimeoutSeconds: 30,
  imageId: "ami-0fedcba9876543210",
  vpcId: "vpc-0a1b2c3d4e5f60718",
  subnetId: "subnet-0a1b2c3d4e5f60718",
};

test("--server-ports changes the security group in place: GroupDescription (a replacement property) is the same for every port range", () => {
  const one = serverResources(server).resources.ServerSecurityGroup?.Properties ?? {};
  const four = serverResources({ ...server, ports: 4 }).resources.ServerSecurityGroup?.Properties ?? {};
  assert.equal(one.GroupDescription, four.GroupDescription);
  // the range itself is in the ingress rule, which CloudFormation updates in place
  assert.notDeepEqual(one.SecurityGroupIngress, four.SecurityGroupIngress);
  const instance = (options: ServerTemplateOptions) =>
    JSON.stringify(serverResources(options).resources.Iperf3Server1?.Properties.UserData);
  assert.equal(
    instance(server),
    instance({ ...server, ports: 4 }),
    "nor does the instance's user data change",
  );
});

test("the recorder may list the bucket without a prefix condition, so HEAD on a missing test object is 404, not 403", () => {
  const template = buildScheduleTemplate({
    name: "daily",
    expression: "rate(1 day)",
    timezone: "UTC",
    variants: [{ memoryMb: 1024, arch: "arm64" }],
    maxConcurrency: 1,
    mode: "inline",
    agentTimeoutSeconds: 900,
  });
  const listBucket = Object.values(template.Resources)
    .flatMap((resource: any) => resource.Properties?.Policies ?? [])
    .flatMap((policy: any) => policy.PolicyDocument.Statement)
    .filter((statement: any) => [statement.Action].flat().includes("s3:ListBucket"));
  assert.ok(listBucket.length > 0);
  for (const statement of listBucket)
    assert.equal(
      statement.Condition,
      undefined,
      "S3 checks ListBucket for a HEAD of a missing key with no s3:prefix in the request",
    );
});

test("the dry-run estimate charges the server for its time-to-live (it lives that long), not the run's minutes", () => {
  const plan = validatePlan({
    targets: [{ platform: "aws", region: "us-west-2" }],
    memoryMb: [2048],
    architectures: ["arm64"],
    probes: [{ kind: "iperf3", timeSeconds: 10, parallel: 1, direction: "download" }],
    repetitions: 1,
  });
  const hours = (estimate: ReturnType<typeof estimatePlan>) => estimate.regions[0]?.cost.serverHours;
  assert.equal(hours(estimatePlan(plan)), 3, "deploy's default --ttl-hours");
  assert.equal(hours(estimatePlan(plan, { serverTtlHours: 8 })), 8);
});

test("the server's iperf3 version: older than 3.19.1 (the CVE-2025-54349/54350 fixes) is said, with why", () => {
  assert.equal(minimumIperf3Version, "3.19.1");
  assert.equal(iperf3VersionAdvice("3.19.1"), null);
  assert.equal(iperf3VersionAdvice("3.20"), null);
  assert.match(
    iperf3VersionAdvice("3.16") ?? "",
    /iperf3 3\.16 .*older than 3\.19\.1.*CVE-2025-54349.*CVE-2025-54350/,
  );
  assert.match(iperf3VersionAdvice("unknown") ?? "", /could not tell/);
  // the boot script checks the same at start, with the same comparison (sort -V)
  const script = serverUserData();
  const check = /^iperf3_version_ok\(\) \{.*\}$/m.exec(script)?.[0];
  assert.ok(check, "the boot script defines the check");
  const ok = (version: string) =>
    execFileSync(
      "bash",
      ["-c", `${check.replaceAll("\\$", "$")}\niperf3_version_ok "$1" && echo yes || echo no`, "_", version],
      {
        encoding: "utf8",
      },
    ).trim();
  assert.equal(ok("3.16"), "no");
  assert.equal(ok("3.19"), "no");
  assert.equal(ok("3.19.1"), "yes");
  assert.equal(ok("3.20"), "yes");
});

test("a schedule carries the tag: it sits in its own schedule group, which takes tags (a schedule itself takes none)", () => {
  const template = buildScheduleTemplate({
    name: "daily",
    expression: "rate(1 day)",
    timezone: "UTC",
    variants: [{ memoryMb: 1024, arch: "arm64" }],
    maxConcurrency: 1,
    mode: "inline",
    agentTimeoutSeconds: 900,
  }) as any;
  const schedule = template.Resources.Schedule;
  assert.deepEqual(schedule.Properties.GroupName, { Ref: "ScheduleGroup" });
  const group = template.Resources.ScheduleGroup;
  assert.equal(group.Type, "AWS::Scheduler::ScheduleGroup");
  assert.deepEqual(group.Properties.Tags, [{ Key: "lambda-netbench", Value: "managed" }]);
});
