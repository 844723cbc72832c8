import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { test } from "node:test";
import { cgroups } from "../../src/platforms/local/cgroup-choice.js";
import { findOrphanedLabs, removeLab, removeOrphanedLabs } from "../../src/platforms/local/cleanup.js";
import { labDown, labStatus, labUp } from "../../src/platforms/local/lab.js";
import { privateLabName } from "../../src/platforms/local/lab-names.js";
import { LocalPlatform } from "../../src/platforms/local/local-platform.js";
import { createNamespace, listNamespaces } from "../../src/platforms/local/namespaces.js";
import { processStartTicks } from "../../src/platforms/local/state-file.js";
import { rootSkip } from "../helpers/root-gate.js";
import { ensureBuilt } from "./lab-helpers.js";

/** `lab up` / `down`, crash leftovers, and the unshaped loopback mode. */
const rootOnly = rootSkip("lab up/down and crash clean-up");
const labName = privateLabName();
const x86 = process.arch === "x64" ? "x86_64" : "arm64";

async function ours(): Promise<string[]> {
  return (await listNamespaces()).filter((name) => name.startsWith(labName));
}

test("lab up starts the servers detached; a second up removes the first one's leftovers; down removes everything", {
  skip: rootOnly,
}, async () => {
  try {
    const first = await labUp({ labName, profile: "default-625", environments: 2 });
    assert.equal(first.mode, "shaped");
    assert.deepEqual(
      first.processes.map((p) => p.role),
      ["s3-control", "nginx", "iperf3-server:5201", "iperf3-server:5202"],
    );
    const status = await labStatus(labName);
    assert.equal(status.up, true, status.problems.join("; "));
    assert.deepEqual(await ours(), [`${labName}-cloud`]);
    // a crashed run: its processes and namespace are still there; the next up must replace them
    const second = await labUp({ labName, profile: "raised-3000", environments: 1 });
    for (const old of first.processes)
      assert.equal(await processStartTicks(old.pid), null, `${old.role} survived`);
    assert.equal(second.profile, "raised-3000");
    assert.equal((await labStatus(labName)).up, true);
    const removed = await labDown(labName);
    assert.ok(removed.some((line) => line.includes(`${labName}-cloud`)));
    for (const p of second.processes)
      assert.equal(await processStartTicks(p.pid), null, `${p.role} survived down`);
    assert.deepEqual(await ours(), []);
    assert.equal((await labStatus(labName)).state, null);
  } finally {
    await removeLab(labName);
  }
});

test("a crashed private lab (owner gone) is found and removed, and only names of ours are touched", {
  skip: rootOnly,
}, async () => {
  // a PID that certainly is not running any more: a process that has exited
  const exited = spawnSync("sh", ["-c", "echo $$"], { encoding: "utf8" });
  const deadPid = Number(exited.stdout.trim());
  const orphan = privateLabName(deadPid);
  const unrelated = `lnblabx${process.pid}-e0`;
  try {
    await createNamespace(`${orphan}-e0`);
    await createNamespace(unrelated);
    const orphanCgroup = cgroups().environmentCgroup(orphan, "e0");
    for (const dir of orphanCgroup.dirs) mkdirSync(dir, { recursive: true });
    assert.ok((await findOrphanedLabs()).includes(orphan));
    assert.ok(!(await findOrphanedLabs()).includes(labName), "a live lab is never an orphan");
    await removeOrphanedLabs();
    const left = await listNamespaces();
    assert.ok(!left.includes(`${orphan}-e0`));
    for (const dir of cgroups().labDirs(orphan)) assert.ok(!existsSync(dir), `${dir} left behind`);
    assert.ok(left.includes(unrelated), "a name the lab does not create was touched");
  } finally {
    spawnSync("ip", ["netns", "delete", unrelated]);
    await removeLab(orphan);
  }
});

test("unshaped mode runs everything on loopback and says so", async () => {
  ensureBuilt();
  const platform = await LocalPlatform.open({
    profile: "default-625",
    labName,
    environments: 1,
    mode: "unshaped",
  });
  try {
    const facts = await platform.facts();
    assert.equal(facts.unshaped, true);
    assert.equal(facts.quotaBitsPerSecond, null);
    assert.match(String(facts.details.unshapedReason), /unshaped/);
    const endpoints = platform.endpoints();
    assert.equal(endpoints.iperf3?.host, "127.0.0.1");
    const info = await platform.invoke({ memoryMb: 1024, arch: x86 }, { probe: "info" });
    assert.ok(info.response?.ok, JSON.stringify(info.failure));
    // the iperf3 server answers the stock client over loopback
    const port = String(endpoints.iperf3?.ports[0]);
    const run = await platform.execInEnvironment(1024, "iperf3", [
      "-c",
      "127.0.0.1",
      "-p",
      port,
      "-t",
      "1",
      "-J",
    ]);
    assert.equal(run.exitCode, 0, run.stderr);
    // and the S3 server over TLS with the lab's CA: PutObject, then GET from the file
    const url = `${endpoints.s3?.endpoint}/${endpoints.s3?.bucket}/unshaped-check`;
    const ca = platform.lab.s3.caFile;
    const put = spawnSync(
      "curl",
      ["-sS", "--fail", "--cacert", ca, "-X", "PUT", "--data-binary", "hello lab", url],
      { encoding: "utf8" },
    );
    assert.equal(put.status, 0, put.stderr);
    const get = spawnSync("curl", ["-sS", "--fail", "--cacert", ca, url], { encoding: "utf8" });
    assert.equal(get.stdout, "hello lab");
  } finally {
    await platform.dispose();
    await removeLab(labName);
  }
  assert.equal((await labStatus(labName)).state, null);
});
