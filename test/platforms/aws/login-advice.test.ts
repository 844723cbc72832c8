import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { loginAdvice } from "../../../src/platforms/aws/login-advice.js";

/** The exact login command, from where the credential chain took the credentials. */
const dir = mkdtempSync(join(tmpdir(), "lnb-login-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const config = join(dir, "config");
const credentials = join(dir, "credentials");
writeFileSync(
  config,
  `# shared config
[default]
sso_session = corp
sso_account_id = 123456789012
sso_role_name = Bench

[profile bench]
sso_session = corp
sso_account_id = 123456789012
sso_role_name = Bench
region = us-west-2
s3 =
  max_concurrent_requests = 20

[profile legacy]
sso_start_url = https://corp.awsapps.com/start
sso_region = us-east-1

[profile runner]
role_arn = arn:aws:iam::123456789012:role/Benchmark
source_profile = bench

[profile console]
login_session = arn:aws:iam::123456789012:user/alice

[profile vault]
credential_process = aws-vault export --format=json work

[sso-session corp]
sso_start_url = https://corp.awsapps.com/start
sso_region = us-east-1
`,
);
writeFileSync(
  credentials,
  "[keys]\naws_access_key_id = AKIDEXAMPLE\naws_secret_access_key = x\naws_session_token = y\n",
);
const env = (extra: Record<string, string>) => ({
  HOME: dir,
  AWS_CONFIG_FILE: config,
  AWS_SHARED_CREDENTIALS_FILE: credentials,
  ...extra,
});

test("SSO profiles: aws sso login with the profile (sso-session and legacy start URL)", () => {
  assert.equal(loginAdvice(env({ AWS_PROFILE: "bench" })).command, "aws sso login --profile bench");
  assert.equal(loginAdvice(env({ AWS_PROFILE: "legacy" })).command, "aws sso login --profile legacy");
  assert.match(
    loginAdvice(env({ AWS_PROFILE: "bench" })).text,
    /log in again with `aws sso login --profile bench`/,
  );
});

test("the default profile: no --profile", () => {
  assert.equal(loginAdvice(env({})).command, "aws sso login");
});

test("a role assumed from an SSO profile: log in to the source profile", () => {
  const advice = loginAdvice(env({ AWS_PROFILE: "runner" }));
  assert.equal(advice.command, "aws sso login --profile bench");
  assert.match(advice.text, /profile "runner" assumes a role with the credentials of "bench"/);
});

test("aws login sessions, credential_process, temporary keys in the credentials file", () => {
  assert.equal(loginAdvice(env({ AWS_PROFILE: "console" })).command, "aws login --profile console");
  const vault = loginAdvice(env({ AWS_PROFILE: "vault" }));
  assert.equal(vault.command, null);
  assert.match(vault.text, /credential_process \(`aws-vault export --format=json work`\)/);
  assert.match(
    loginAdvice(env({ AWS_PROFILE: "keys" })).text,
    /new keys for profile "keys".*session token has expired/,
  );
});

test("environment keys (no AWS_PROFILE): export new temporary keys", () => {
  const advice = loginAdvice(env({ AWS_ACCESS_KEY_ID: "ASIAEXAMPLE", AWS_SESSION_TOKEN: "t" }));
  assert.equal(advice.command, null);
  assert.match(advice.text, /export AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN again/);
  // a named profile wins over environment keys, as in the SDK's chain
  assert.equal(
    loginAdvice(env({ AWS_PROFILE: "bench", AWS_ACCESS_KEY_ID: "ASIAEXAMPLE" })).command,
    "aws sso login --profile bench",
  );
});

test("a profile that is in no file: says so with the SSO command as a hint", () => {
  const advice = loginAdvice(env({ AWS_PROFILE: "nowhere" }));
  assert.equal(advice.command, null);
  assert.match(advice.text, /profile "nowhere".*aws sso login --profile nowhere/);
});

test("no credentials at start with an SSO profile: the same exact command", async () => {
  const { missingCredentialsHelp } = await import("../../../src/platforms/aws/credentials.js");
  const saved = { ...process.env };
  Object.assign(process.env, env({ AWS_PROFILE: "runner" }));
  try {
    assert.match(
      missingCredentialsHelp(),
      /profile "runner" \(AWS_PROFILE\) gave no credentials: log in again with `aws sso login --profile bench`/,
    );
  } finally {
    for (const key of ["HOME", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_PROFILE"])
      if (saved[key] === undefined) delete process.env[key];
      else process.env[key] = saved[key];
  }
});
