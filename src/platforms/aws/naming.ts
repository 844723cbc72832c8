/**
 * Names shared by deploy, the platform and teardown: what the tool creates in a region and
 * how it finds it again. Everything it creates carries the `lambda-netbench` tag.
 */
export const stackName = "lambda-netbench";
export const functionName = "lambda-netbench-agent";
export const logGroupName = `/aws/lambda/${functionName}`;
export const tagKey = "lambda-netbench";
export const tagValue = "managed";
/** The agent bundle (zip) lives in the stack's bucket under this prefix; it never expires. */
export const agentCodePrefix = "agent/";
/** Test objects live under this prefix; the bucket's lifecycle rule expires them. */
export const testObjectPrefix = "test-objects/";
export const testObjectExpirationDays = 7;
/** Where s3-put writes: under the test-object prefix, so the agent role may write there and the lifecycle rule expires it. */
export const s3PutKeyPrefix = `${testObjectPrefix}put/`;
/** SSM Parameter Store names of the iperf3 server's secrets and status (per region). */
export const parameterPath = "/lambda-netbench/";
export const iperf3PrivateKeyParameter = "/lambda-netbench/iperf3/private-key";
export const iperf3PasswordParameter = "/lambda-netbench/iperf3/password";
export const iperf3StatusParameter = "/lambda-netbench/iperf3/server-status";
export const iperf3Username = "lambda-netbench";
export const iperf3FirstPort = 5201;
/**
 * Instance tags the server's watchdog reads through the instance metadata (IMDS tag keys allow
 * no "/" or spaces): its time-to-live, its port range and iperf3's idle timeout. Kept out of
 * UserData so an update changes them in place.
 */
export const serverTagNames = {
  expiresAt: "lambda-netbench-expires-at",
  ports: "lambda-netbench-ports",
  idleTimeoutSeconds: "lambda-netbench-idle-timeout-seconds",
} as const;

/** Alias of the published version for one memory size and architecture, e.g. `m1769-arm64`. */
export function aliasName(memoryMb: number, arch: string): string {
  return `m${memoryMb}-${arch.replace("_", "-")}`;
}

/** Key of the test object of exactly `bytes` bytes. */
export function testObjectKey(bytes: number): string {
  return `${testObjectPrefix}object-${bytes}-bytes`;
}

/** The last part of each schedule's recorder function name (the operator policy grants by it). */
export const recorderFunctionSuffix = "recorder";
