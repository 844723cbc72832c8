import { testObjectSizeProblem } from "../../probes/s3/test-object-size.js";
import { AgentProcess, describeAgentExit } from "./agent-process.js";
import { LAB_S3_CREDENTIALS } from "./object-store.js";
import type { LabState } from "./state-file.js";
import { headObjectBytes, testObjectKey } from "./test-objects.js";

/**
 * The lab's test objects (one per size, reused across runs): created by the agent's s3-put
 * probe from the cloud side (unshaped, no cgroup: fast, and through the same S3 API a real
 * bucket is filled with), checked by HEAD. One seeding at a time per platform, so two runs
 * asking for the same size upload it once.
 */
export class TestObjectSeeder {
  private seeding: Promise<void> = Promise.resolve();

  constructor(
    private readonly state: LabState,
    private readonly caPem: () => Promise<string>,
  ) {}

  async ensure(bytes: number): Promise<string> {
    const sizeProblem = testObjectSizeProblem(bytes);
    if (sizeProblem) throw new Error(sizeProblem);
    const key = testObjectKey(bytes);
    const previous = this.seeding;
    let done = () => {};
    this.seeding = new Promise<void>((resolve) => {
      done = resolve;
    });
    await previous;
    try {
      if ((await headObjectBytes(this.state, key)) !== bytes) await this.upload(key, bytes);
      return key;
    } finally {
      done();
    }
  }

  private async upload(key: string, bytes: number): Promise<void> {
    const uploader = new AgentProcess(
      {
        namespace: this.state.cloudNamespace,
        cgroup: null,
        memoryMb: 10_240,
        functionName: `${this.state.labName}-uploader`,
      },
      {
        AWS_ACCESS_KEY_ID: LAB_S3_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: LAB_S3_CREDENTIALS.secretAccessKey,
      },
    );
    try {
      const result = await uploader.invoke(
        {
          probe: "s3-put",
          endpoint: this.state.s3.endpoint,
          region: this.state.s3.region,
          bucket: this.state.s3.bucket,
          key,
          pathStyle: true,
          caPem: await this.caPem(),
          sizeMib: bytes / 1_048_576,
        },
        900,
        undefined,
        async (exit) => ({ kind: "function-error", message: describeAgentExit(exit) }),
      );
      if (!result.response?.ok) {
        const why = result.response
          ? `${result.response.error.kind}: ${result.response.error.message}`
          : result.failure?.message;
        throw new Error(`lab: could not create test object ${key} with the s3-put probe (${why})`);
      }
    } finally {
      await uploader.kill();
    }
    const size = await headObjectBytes(this.state, key);
    if (size !== bytes)
      throw new Error(`lab: test object ${key} has ${size ?? "no"} bytes after s3-put, expected ${bytes}`);
  }
}
