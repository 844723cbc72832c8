import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import type { Server } from "node:net";
import { join } from "node:path";
import { DescribeInstancesCommand, type EC2Client, TerminateInstancesCommand } from "@aws-sdk/client-ec2";
import {
  AddTagsToResourceCommand,
  GetParameterCommand,
  PutParameterCommand,
  type SSMClient,
} from "@aws-sdk/client-ssm";
import { authorizedUserLine } from "../../src/platforms/aws/iperf3-credentials.js";
import {
  iperf3PasswordParameter,
  iperf3PrivateKeyParameter,
  iperf3StatusParameter,
  iperf3Username,
  serverTagNames,
  tagKey,
  tagValue,
} from "../../src/platforms/aws/naming.js";
import { checkIperf3Handshake } from "../../src/platforms/aws/server-handshake.js";
import { listenToSocket, type Mapping, startNamespaceRelay, stopChild } from "./relays.js";

/**
 * What the stack's EC2 instance would do once booted, for the instance moto only records: the
 * user data's work (the secrets from SSM, the users file, stock iperf3 with RSA authentication on
 * each port of its `ports` tag, with its `idle-timeout` tag) and the watchdog's (terminate at
 * the `expires-at` tag, publish the status parameter once every port answers a handshake). The
 * servers run in the lab's cloud namespace at `addressInLab`; the instance's public address
 * (the stack's output, see the front) is `publicAddress` on this machine's loopback, relayed
 * to them, so the CLI's own handshake reaches the same servers the environments measure against.
 */

interface Booted {
  instanceId: string;
  ports: string;
  servers: ChildProcess[];
  relay: ChildProcess | null;
  listeners: Server[];
}

export class InstanceEmulator {
  private readonly booted = new Map<string, Booted>();

  constructor(
    private readonly moto: { ec2: EC2Client; ssm: SSMClient },
    private readonly options: {
      namespace: string | null;
      addressInLab: string;
      publicAddress: string;
      dir: string;
    },
  ) {}

  /** Stops every emulated instance's servers. */
  async stop(): Promise<void> {
    for (const id of [...this.booted.keys()]) await this.shutDown(id);
  }

  /** One watchdog pass over the account's instances of ours. */
  async tick(): Promise<void> {
    const reservations = await this.moto.ec2.send(
      new DescribeInstancesCommand({
        Filters: [
          { Name: `tag:${tagKey}`, Values: [tagValue] },
          { Name: "instance-state-name", Values: ["running"] },
        ],
      }),
    );
    const running = (reservations.Reservations ?? []).flatMap((r) => r.Instances ?? []);
    for (const id of this.booted.keys())
      if (!running.some((instance) => instance.InstanceId === id)) await this.shutDown(id);
    for (const instance of running) {
      const id = instance.InstanceId as string;
      const tags = Object.fromEntries((instance.Tags ?? []).map((t) => [t.Key, t.Value]));
      const expiresAt = Date.parse(tags[serverTagNames.expiresAt] ?? "");
      if (Number.isFinite(expiresAt) && Date.now() >= expiresAt) {
        // InstanceInitiatedShutdownBehavior=terminate: the watchdog's shutdown ends the instance
        await this.moto.ec2.send(new TerminateInstancesCommand({ InstanceIds: [id] }));
        continue;
      }
      const ports = tags[serverTagNames.ports];
      const idle = tags[serverTagNames.idleTimeoutSeconds];
      if (!ports || !idle) continue;
      const current = this.booted.get(id);
      if (current?.ports === ports) continue;
      if (current) await this.shutDown(id);
      await this.boot(id, ports, Number(idle));
    }
  }

  private async boot(instanceId: string, ports: string, idleTimeoutSeconds: number): Promise<void> {
    const [first, last] = ports.split("-").map(Number) as [number, number];
    const portList = Array.from({ length: last - first + 1 }, (_, i) => first + i);
    const dir = join(this.options.dir, instanceId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const read = async (name: string) =>
      (await this.moto.ssm.send(new GetParameterCommand({ Name: name, WithDecryption: true }))).Parameter
        ?.Value ?? "";
    const keyFile = join(dir, "iperf3-private.pem");
    const usersFile = join(dir, "iperf3-users.csv");
    await writeFile(keyFile, await read(iperf3PrivateKeyParameter), { mode: 0o600 });
    await writeFile(
      usersFile,
      `${authorizedUserLine(iperf3Username, await read(iperf3PasswordParameter))}\n`,
      {
        mode: 0o600,
      },
    );
    await chmod(dir, 0o700);
    const booted: Booted = { instanceId, ports, servers: [], relay: null, listeners: [] };
    this.booted.set(instanceId, booted);
    const { namespace, addressInLab, publicAddress } = this.options;
    for (const port of portList) {
      const command = [
        "iperf3",
        "--server",
        "--bind",
        namespace ? addressInLab : publicAddress,
        "--port",
        String(port),
        "--idle-timeout",
        String(idleTimeoutSeconds),
        "--rsa-private-key-path",
        keyFile,
        "--authorized-users-path",
        usersFile,
      ];
      const [file, ...args] = namespace ? ["ip", "netns", "exec", namespace, ...command] : command;
      booted.servers.push(spawn(file as string, args, { stdio: "ignore" }));
    }
    if (namespace) {
      const mappings: Mapping[] = portList.map((port) => ({
        socketPath: join(dir, `port-${port}.sock`),
        host: addressInLab,
        port,
      }));
      booted.relay = await startNamespaceRelay(namespace, mappings);
      for (const mapping of mappings)
        booted.listeners.push(await listenToSocket(publicAddress, mapping.port, mapping.socketPath));
    }
    await this.publishReady(instanceId, ports, portList, idleTimeoutSeconds);
  }

  /** The watchdog's last step: every port answers PARAM_EXCHANGE, then the status parameter. */
  private async publishReady(
    instanceId: string,
    ports: string,
    portList: number[],
    idle: number,
  ): Promise<void> {
    for (const port of portList) {
      let answer = "";
      for (let attempt = 0; attempt < 25 && answer !== "ready"; attempt++) {
        answer = await checkIperf3Handshake(this.options.publicAddress, port, 2_000);
        if (answer !== "ready") await new Promise((resolve) => setTimeout(resolve, 200));
      }
      if (answer !== "ready")
        throw new Error(`emulated server ${instanceId}: port ${port} answers ${answer}`);
    }
    const version = await iperf3Version();
    // iperf3 before 3.17 has no --use-pkcs1-padding and decrypts with PKCS#1 v1.5 only
    const padding = version.localeCompare("3.17", undefined, { numeric: true }) >= 0 ? "oaep" : "pkcs1";
    const status = JSON.stringify({ version, padding, ports, idleTimeoutSeconds: idle, instanceId });
    await this.moto.ssm.send(
      new PutParameterCommand({
        Name: iperf3StatusParameter,
        Type: "String",
        Overwrite: true,
        Value: status,
      }),
    );
    await this.moto.ssm.send(
      new AddTagsToResourceCommand({
        ResourceType: "Parameter",
        ResourceId: iperf3StatusParameter,
        Tags: [{ Key: tagKey, Value: tagValue }],
      }),
    );
  }

  private async shutDown(instanceId: string): Promise<void> {
    const booted = this.booted.get(instanceId);
    if (!booted) return;
    this.booted.delete(instanceId);
    for (const listener of booted.listeners) await new Promise((resolve) => listener.close(resolve));
    await stopChild(booted.relay);
    for (const server of booted.servers) await stopChild(server);
  }

  /** The instances whose servers run now (tests). */
  get running(): string[] {
    return [...this.booted.keys()];
  }
}

async function iperf3Version(): Promise<string> {
  const child = spawn("iperf3", ["--version"], { stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  await new Promise((resolve) => child.once("exit", resolve));
  return /iperf (\d+\.\d+(?:\.\d+)?)/.exec(out)?.[1] ?? "unknown";
}
