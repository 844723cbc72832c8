import { type FaultProxy, startFaultProxy } from "./fault-proxy.js";
import { type S3rverInstance, startS3rver } from "./s3rver-instance.js";
import { createTestTls, type TestTls } from "./tls-ca.js";

/**
 * The servers the s3 probe tests share: s3rver over HTTPS (a throwaway openssl CA), and a
 * plain-HTTP s3rver behind the fault proxy for the answers s3rver cannot give itself.
 */
export interface S3TestServers {
  tls: TestTls;
  server: S3rverInstance;
  plain: S3rverInstance;
  proxy: FaultProxy;
  close(): Promise<void>;
}

export async function startS3TestServers(bucket: string): Promise<S3TestServers> {
  const tls = createTestTls();
  const started: Partial<S3TestServers> = { tls };
  const close = async () => {
    await started.proxy?.close();
    await started.plain?.close();
    await started.server?.close();
    tls.remove();
  };
  try {
    started.server = await startS3rver({ buckets: [bucket], tls });
    started.plain = await startS3rver({ buckets: [bucket] });
    started.proxy = await startFaultProxy(started.plain.endpoint);
    return { tls, server: started.server, plain: started.plain, proxy: started.proxy, close };
  } catch (error) {
    await close();
    throw error;
  }
}
