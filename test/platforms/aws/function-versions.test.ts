import assert from "node:assert/strict";
import { test } from "node:test";
import { latestFromStackOutputs, publishVariants } from "../../../src/platforms/aws/function-versions.js";
import { buildStackTemplate } from "../../../src/platforms/aws/stack-template.js";
import { AwsStub, restJson, stubbedClients } from "./aws-stub.js";

/**
 * A killed run leaves $LATEST at one of its sizes; the next run must restore what the stack
 * sets (its outputs), not what it finds (issue 29, item 10).
 */
test("$LATEST is restored to the stack's own memory, not to the size a killed run left it at", async () => {
  const configuration = (memoryMb: number) =>
    restJson({
      FunctionName: "lambda-netbench-agent",
      MemorySize: memoryMb,
      Architectures: ["arm64"],
      State: "Active",
      LastUpdateStatus: "Successful",
    });
  const stub = new AwsStub()
    // the killed run's last size, still on $LATEST
    .on("GetFunctionConfiguration", configuration(2048))
    .on("UpdateFunctionConfiguration", (request) => configuration(Number(request.input.MemorySize)))
    .on("GetFunction", restJson({ Configuration: { State: "Active", LastUpdateStatus: "Successful" } }))
    .on("PublishVersion", restJson({ Version: "7", MemorySize: 512 }))
    .on("GetAlias", restJson({ Name: "m512-arm64", FunctionVersion: "6" }))
    .on("UpdateAlias", restJson({ Name: "m512-arm64", FunctionVersion: "7" }));
  const template = buildStackTemplate({
    agentCodeKey: "agent/abc.zip",
    arch: "arm64",
    memoryMb: 1024,
    timeoutSeconds: 900,
    server: null,
  });
  // the outputs as CloudFormation gives them back: strings
  const outputs = Object.fromEntries(
    Object.entries(template.Outputs).flatMap(([key, output]) =>
      typeof output.Value === "string" ? [[key, output.Value]] : [],
    ),
  );
  assert.deepEqual(latestFromStackOutputs(outputs), { memoryMb: 1024, arch: "arm64" });
  await publishVariants(stubbedClients(stub).lambda, [{ memoryMb: 512, arch: "arm64" }], {
    code: { bucket: "b", key: "agent/abc.zip" },
    waiter: { minDelaySeconds: 1, maxDelaySeconds: 1, maxWaitSeconds: 5 },
    stackLatest: latestFromStackOutputs(outputs),
  });
  const sizes = stub.requests
    .filter((request) => request.operation === "UpdateFunctionConfiguration")
    .map((request) => Number(request.input.MemorySize));
  assert.deepEqual(sizes, [512, 1024], "the run's size, then the stack's own");
  // a stack from before the output: what $LATEST has is all there is
  assert.deepEqual(latestFromStackOutputs({ FunctionArchitecture: "x86_64" }), {
    memoryMb: undefined,
    arch: "x86_64",
  });
});
