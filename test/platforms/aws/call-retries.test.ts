import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { DescribeStacksCommand } from "@aws-sdk/client-cloudformation";
import { GetParameterCommand } from "@aws-sdk/client-ssm";
import { createAwsClients } from "../../../src/platforms/aws/aws-clients.js";
import { patientRetries } from "../../../src/platforms/aws/call-retries.js";
import { CredentialsExpiredError } from "../../../src/platforms/aws/expired-credentials.js";
import { invokeAgent } from "../../../src/platforms/aws/lambda-invoker.js";
import { RunPausedError } from "../../../src/runner/platform.js";
import {
  AwsStub,
  describeStacks,
  json,
  jsonError,
  queryError,
  restJsonError,
  testCredentials,
} from "./aws-stub.js";

/**
 * Every control-plane call rides out what a busy account answers (call-retries.ts): throttling
 * far beyond the SDK's three attempts, a 5xx burst, and expired credentials turned into the
 * run's pause at once. Real SDK clients on the stubbed transport; waits of a millisecond.
 */
const clientsOn = (stub: AwsStub) =>
  createAwsClients({
    region: "us-west-2",
    credentials: testCredentials,
    requestHandler: stub.handler,
    retries: { ...patientRetries, baseMs: 1, capMs: 2 },
  });

describe("call retries on the real SDK clients (stubbed transport)", () => {
  test("CloudFormation throttled 12 times in a row, then answering: the call succeeds", async () => {
    const throttled = Array.from({ length: 12 }, () => queryError("Throttling", "Rate exceeded"));
    const stub = new AwsStub().on("DescribeStacks", ...throttled, describeStacks("CREATE_COMPLETE"));
    const answer = await clientsOn(stub).cloudFormation.send(
      new DescribeStacksCommand({ StackName: "lambda-netbench" }),
    );
    assert.equal(answer.Stacks?.[0]?.StackStatus, "CREATE_COMPLETE");
    assert.equal(stub.operations().length, 13);
  });

  test("throttling that never ends gives up after the policy's attempts, with AWS's error", async () => {
    const stub = new AwsStub().on("GetParameter", jsonError("ThrottlingException", "Rate exceeded"));
    await assert.rejects(
      clientsOn(stub).ssm.send(new GetParameterCommand({ Name: "/x" })),
      (error: Error) => error.name === "ThrottlingException",
    );
    assert.equal(stub.operations().length, patientRetries.throttleAttempts);
  });

  test("a 5xx burst is retried; a client error is not", async () => {
    const stub = new AwsStub().on(
      "GetParameter",
      ...Array.from({ length: 4 }, () => jsonError("InternalServerError", "try again", 500)),
      json({ Parameter: { Name: "/x", Value: "v" } }),
    );
    const answer = await clientsOn(stub).ssm.send(new GetParameterCommand({ Name: "/x" }));
    assert.equal(answer.Parameter?.Value, "v");
    const refused = new AwsStub().on("GetParameter", jsonError("ParameterNotFound", "no such parameter"));
    await assert.rejects(clientsOn(refused).ssm.send(new GetParameterCommand({ Name: "/x" })));
    assert.equal(refused.operations().length, 1);
  });

  test("expired credentials: CredentialsExpiredError (the run's pause) at the first answer, never retried", async () => {
    const stub = new AwsStub().on(
      "GetParameter",
      jsonError("ExpiredTokenException", "The security token included in the request is expired", 403),
    );
    await assert.rejects(
      clientsOn(stub).ssm.send(new GetParameterCommand({ Name: "/x" })),
      (error: unknown) => error instanceof CredentialsExpiredError && error instanceof RunPausedError,
    );
    assert.equal(stub.operations().length, 1);
  });

  test("Lambda Invoke is left to the invoker (its retries are counted in the record), and pauses on expiry", async () => {
    const stub = new AwsStub().on(
      "Invoke",
      restJsonError("ExpiredTokenException", "The security token included in the request is expired", 403),
    );
    await assert.rejects(
      invokeAgent(clientsOn(stub).lambda, "$LATEST", { probe: "info" }, { backoff: { baseMs: 1 } }),
      (error: unknown) => error instanceof CredentialsExpiredError,
    );
    assert.equal(stub.operations().length, 1);
  });
});
