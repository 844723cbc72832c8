/**
 * On Node 20 the AWS SDK prints a 9-line notice before an AWS command's first line: SDK
 * releases after January 2027 will need Node 22. This tool pins SDK releases that run on Node
 * 20 (package-lock.json; docs/aws.md says so), so the notice concerns whoever upgrades them, not
 * a run: it is turned off here unless the user has set the SDK's own switch either way.
 */
const SWITCH = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED";

export function quietSdkNodeNotice(env: NodeJS.ProcessEnv = process.env): void {
  if (env[SWITCH] === undefined) env[SWITCH] = "true";
}
