import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { AwsPlatform } from "../../src/platforms/aws/aws-platform.js";
import { AwsStub, describeStacks, json } from "../platforms/aws/aws-stub.js";

// `--profile` reaches the credential chain and the clients as an argument: the named profile's
// keys sign the calls and process.env is never written (it used to set AWS_PROFILE).

const dir = mkdtempSync(join(tmpdir(), "lnb-aws-profile-"));
const variables = [
  "AWS_PROFILE",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_CONFIG_FILE",
  "AWS_SHARED_CREDENTIALS_FILE",
] as const;
const saved = Object.fromEntries(variables.map((name) => [name, process.env[name]]));

before(() => {
  for (const name of variables) delete process.env[name];
  // the files the SDK reads (read, never written, by the code under test)
  process.env.AWS_CONFIG_FILE = join(dir, "config");
  process.env.AWS_SHARED_CREDENTIALS_FILE = join(dir, "credentials");
  writeFileSync(
    process.env.AWS_CONFIG_FILE,
    "[default]\nregion = eu-west-1\n\n[profile bench]\nregion = us-west-2\n",
  );
  writeFileSync(
    process.env.AWS_SHARED_CREDENTIALS_FILE,
    "[default]\naws_access_key_id = AKIADEFAULTPROFILE0\naws_secret_access_key = default-secret\n\n" +
      "[bench]\naws_access_key_id = AKIABENCHPROFILE000\naws_secret_access_key = bench-secret\n",
  );
});

after(() => {
  for (const name of variables)
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  rmSync(dir, { recursive: true, force: true });
});

const quota = {
  Quota: { QuotaCode: "L-14320ECE", QuotaName: "Network bandwidth per execution environment", Value: 625 },
};

/** The access key each call was signed with (SigV4's Credential=KEY/...). */
function signingKeys(stub: AwsStub): string[] {
  return [
    ...new Set(
      stub.requests.map(
        (request) => /Credential=([A-Z0-9]+)\//.exec(request.headers.authorization ?? "")?.[1],
      ),
    ),
  ].map(String);
}

async function cli(stub: AwsStub, ...argv: string[]): Promise<void> {
  const { buildProgram } = await import("../../src/cli/main.js");
  // the stub's transport only: the credentials come from the SDK's chain, as in a real run
  await buildProgram({ aws: { requestHandler: stub.handler } }).parseAsync([
    "node",
    "lambda-netbench",
    ...argv,
  ]);
}

test("quota get --profile bench: the bench keys sign every call, in bench's region; AWS_PROFILE untouched", async () => {
  const stub = new AwsStub()
    .on("GetServiceQuota", json(quota))
    .on("GetAWSDefaultServiceQuota", json(quota))
    .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }));
  const log = console.log;
  console.log = () => {};
  try {
    await cli(stub, "quota", "get", "--profile", "bench", "--json");
  } finally {
    console.log = log;
  }
  assert.ok(stub.requests.length > 0, "the quota was read");
  assert.deepEqual(signingKeys(stub), ["AKIABENCHPROFILE000"]);
  assert.deepEqual(
    [...new Set(stub.requests.map((request) => request.region))],
    ["us-west-2"],
    "bench's region",
  );
  assert.equal(process.env.AWS_PROFILE, undefined, "process.env is not written");
});

test("without --profile: the default profile's keys and region (the SDK's own default)", async () => {
  const stub = new AwsStub()
    .on("GetServiceQuota", json(quota))
    .on("GetAWSDefaultServiceQuota", json(quota))
    .on("ListRequestedServiceQuotaChangeHistoryByQuota", json({ RequestedQuotas: [] }));
  const log = console.log;
  console.log = () => {};
  try {
    await cli(stub, "quota", "get", "--json");
  } finally {
    console.log = log;
  }
  assert.deepEqual(signingKeys(stub), ["AKIADEFAULTPROFILE0"]);
  assert.deepEqual([...new Set(stub.requests.map((request) => request.region))], ["eu-west-1"]);
});

test("AwsPlatform.open({ profile }) (what run --profile opens a target with): the profile's keys, no env write", async () => {
  const stub = new AwsStub()
    .on("DescribeStacks", describeStacks("UPDATE_COMPLETE", {}))
    .on("GetServiceQuota", json(quota));
  await assert.rejects(
    AwsPlatform.open({ region: "us-west-2", profile: "bench", requestHandler: stub.handler }),
    /no usable lambda-netbench stack in us-west-2/,
  );
  assert.deepEqual(signingKeys(stub), ["AKIABENCHPROFILE000"]);
  assert.equal(process.env.AWS_PROFILE, undefined);
});

test("a profile that gives no credentials is named as --profile in the error", async () => {
  const stub = new AwsStub();
  await assert.rejects(
    cli(stub, "quota", "get", "--profile", "missing", "--region", "us-west-2"),
    /profile "missing" \(--profile\) gave no credentials/,
  );
  assert.equal(stub.requests.length, 0, "refused before any call");
  assert.equal(process.env.AWS_PROFILE, undefined);
});

test("deploy --profile bench: the bench keys sign its calls, in bench's region; AWS_PROFILE untouched", async () => {
  // the first call (the stack's state) is all this needs: which keys signed it and where
  const stub = new AwsStub().on("DescribeStacks", describeStacks("UPDATE_COMPLETE", {}));
  const log = console.log;
  const error = console.error;
  console.log = () => {};
  console.error = () => {};
  try {
    await cli(stub, "deploy", "--profile", "bench", "--dry-run").catch((e) => log(String(e)));
  } finally {
    console.log = log;
    console.error = error;
  }
  assert.ok(stub.requests.length > 0, "deploy made its calls");
  assert.deepEqual(signingKeys(stub), ["AKIABENCHPROFILE000"]);
  assert.deepEqual([...new Set(stub.requests.map((request) => request.region))], ["us-west-2"]);
  assert.equal(process.env.AWS_PROFILE, undefined, "process.env is not written (deploy used to set it)");
});
