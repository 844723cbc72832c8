import assert from "node:assert/strict";
import { test } from "node:test";
import { quietSdkNodeNotice } from "../../src/cli/sdk-node-notice.js";

const SWITCH = "AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED";

test("the SDK's Node-version notice is off unless the user set the switch", () => {
  const unset: NodeJS.ProcessEnv = {};
  quietSdkNodeNotice(unset);
  assert.equal(unset[SWITCH], "true");
  const chosen: NodeJS.ProcessEnv = { [SWITCH]: "false" };
  quietSdkNodeNotice(chosen);
  assert.equal(chosen[SWITCH], "false", "the user's own setting stands");
});
