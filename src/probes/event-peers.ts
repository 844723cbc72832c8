import type { Iperf3Auth } from "./iperf3/options.js";

// What a probe's event takes from its peers: the servers a platform offers, and what the runner
// resolved for one invocation.

/** The peers a platform offers the probes (what `Platform.endpoints()` returns). */
export interface ProbePeers {
  iperf3?: {
    host: string;
    /** One port per test that may run at once (one test at a time per server port). */
    ports: number[];
    /** Credentials for RSA authentication, handed to the agent; never logged or recorded. */
    auth?: Iperf3Auth;
  };
  s3?: {
    endpoint?: string;
    region: string;
    bucket: string;
    pathStyle: boolean;
    caPem?: string;
    /** Where s3-put may write (the platform's grant); default `lambda-netbench/put/`. */
    putKeyPrefix?: string;
  };
}

/** What the runner resolved for one invocation before its event is built. */
export interface EventContext {
  /** Unique across runs, `<runId>/<cellId>-<repetition>`: names what an invocation writes. */
  invocationName: string;
  peers: ProbePeers;
  /** The iperf3 server port taken for this invocation (probes whose peer is iperf3). */
  iperf3Port?: number;
  /** The key of the test object (probes with `testObjectBytes`). */
  s3ObjectKey?: string;
}

/** The target lacks the peer a probe needs (the message goes into the record). */
export class MissingPeerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MissingPeerError";
  }
}

/** The iperf3 server of the context: host, the port taken and the credentials. */
export function iperf3Peer(context: EventContext): {
  host: string;
  port: number;
  auth?: NonNullable<ProbePeers["iperf3"]>["auth"];
} {
  const server = context.peers.iperf3;
  if (!server) throw new MissingPeerError("this target has no iperf3 server");
  if (context.iperf3Port === undefined) throw new Error("iperf3 port not assigned");
  return { host: server.host, port: context.iperf3Port, ...(server.auth ? { auth: server.auth } : {}) };
}

/** The S3 endpoint of the context, as an S3 probe's event carries it. */
export function s3Peer(context: EventContext): {
  endpoint?: string;
  region: string;
  bucket: string;
  pathStyle: boolean;
  caPem?: string;
} {
  const s3 = context.peers.s3;
  if (!s3) throw new MissingPeerError("this target has no S3 endpoint");
  return {
    ...(s3.endpoint ? { endpoint: s3.endpoint } : {}),
    region: s3.region,
    bucket: s3.bucket,
    pathStyle: s3.pathStyle,
    ...(s3.caPem ? { caPem: s3.caPem } : {}),
  };
}

/** The S3 endpoint and the test object the run resolved for the cell, as a GET probe's event carries them. */
export function s3TestObjectPeer(context: EventContext): ReturnType<typeof s3Peer> & { key: string } {
  const peer = s3Peer(context);
  if (context.s3ObjectKey === undefined) throw new MissingPeerError("test object not resolved");
  return { ...peer, key: context.s3ObjectKey };
}
