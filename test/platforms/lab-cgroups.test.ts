import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { cgroup2Mount, chooseCgroups } from "../../src/platforms/local/cgroup-choice.js";
import { joinCgroupScript } from "../../src/platforms/local/cgroups.js";
import { CgroupV1 } from "../../src/platforms/local/cgroups-v1.js";
import { CgroupV2 } from "../../src/platforms/local/cgroups-v2.js";

/**
 * Both cgroup implementations against fake cgroup trees in a temporary directory (plain files:
 * what each writes where), and the choice between them. The real kernels are exercised by the
 * lab tests: v1 on this machine, v2 in the stock-kernel guest.
 */
const temp = mkdtempSync(join(tmpdir(), "lnb-cgroups-"));
after(() => rmSync(temp, { recursive: true, force: true }));
const read = (path: string) => readFileSync(path, "utf8");

function fakeV2Root(name: string, controllers = "cpuset cpu io memory pids"): string {
  const root = join(temp, name);
  mkdirSync(root, { recursive: true });
  writeFileSync(join(root, "cgroup.controllers"), `${controllers}\n`);
  writeFileSync(join(root, "cgroup.subtree_control"), "");
  return root;
}

test("cgroup v2: cpu.max from memory / mbPerVcpu, memory.max, no swap, controllers delegated, equal weights", async () => {
  const root = fakeV2Root("v2");
  const driver = new CgroupV2(root);
  const cgroup = driver.environmentCgroup("lnblabp1", "e0");
  assert.deepEqual(cgroup.dirs, [join(root, "lnblabp1", "e0")]);
  await driver.createCgroup("lnblabp1", cgroup);
  // +cpu +memory in the root's subtree_control and the lab's (processes only in the leaves)
  assert.equal(read(join(root, "cgroup.subtree_control")), "+cpu +memory");
  assert.equal(read(join(root, "lnblabp1", "cgroup.subtree_control")), "+cpu +memory");
  assert.equal(read(join(root, "lnblabp1", "cpu.weight")), "1000");
  assert.equal(read(join(root, "lnblabp1", "e0", "cpu.weight")), "100");
  await driver.configureCgroup(cgroup, 1024 / 1769, 1024 * 1_048_576);
  assert.equal(read(join(root, "lnblabp1", "e0", "cpu.max")), "57886 100000");
  assert.equal(read(join(root, "lnblabp1", "e0", "memory.max")), `${1024 * 1_048_576}`);
  assert.equal(read(join(root, "lnblabp1", "e0", "memory.swap.max")), "0");
  assert.ok(Math.abs(((await driver.cpuQuotaCores(cgroup)) ?? 0) - 0.57886) < 1e-9);
  // the servers: a sibling with the same weight, no quota
  const cloud = await driver.cloudCgroup("lnblabp1");
  assert.deepEqual(cloud.dirs, [join(root, "lnblabp1", "cloud")]);
  assert.equal(read(join(root, "lnblabp1", "cloud", "cpu.weight")), "100");
  assert.equal(joinCgroupScript(cgroup), `echo $$ > '${join(root, "lnblabp1", "e0")}/cgroup.procs'`);
  // out-of-memory from memory.events
  assert.equal(await driver.oomKillCount(cgroup), 0);
  writeFileSync(
    join(root, "lnblabp1", "e0", "memory.events"),
    "low 0\nhigh 0\nmax 12\noom 2\noom_kill 1\noom_group_kill 0\n",
  );
  assert.equal(await driver.oomKillCount(cgroup), 1);
  assert.deepEqual(driver.labDirs("lnblabp1"), [join(root, "lnblabp1")]);
  assert.deepEqual(await driver.listLabs("lnblab"), ["lnblabp1"]);
});

test("cgroup v2: controllers already enabled are not written again; 10,240 MB is capped by the caller's cores", async () => {
  const root = fakeV2Root("v2-enabled");
  writeFileSync(join(root, "cgroup.subtree_control"), "cpu io memory\n");
  const driver = new CgroupV2(root);
  const cgroup = driver.environmentCgroup("lnblab", "e1");
  await driver.createCgroup("lnblab", cgroup);
  assert.equal(read(join(root, "cgroup.subtree_control")), "cpu io memory\n");
  await driver.configureCgroup(cgroup, 2, 10_240 * 1_048_576);
  assert.equal(read(join(root, "lnblab", "e1", "cpu.max")), "200000 100000");
});

test("cgroup v1: cfs quota and period, memory limit (memsw kept above it), lab weight", async () => {
  const root = join(temp, "v1");
  const driver = new CgroupV1(root);
  const cgroup = driver.environmentCgroup("lnblabp2", "e0");
  assert.deepEqual(cgroup.dirs, [
    join(root, "cpu", "lnblabp2", "e0"),
    join(root, "memory", "lnblabp2", "e0"),
  ]);
  await driver.createCgroup("lnblabp2", cgroup);
  assert.equal(read(join(root, "cpu", "lnblabp2", "cpu.shares")), "10240");
  const memoryDir = join(root, "memory", "lnblabp2", "e0");
  writeFileSync(join(memoryDir, "memory.limit_in_bytes"), `${512 * 1_048_576}`);
  writeFileSync(join(memoryDir, "memory.memsw.limit_in_bytes"), `${512 * 1_048_576}`);
  await driver.configureCgroup(cgroup, 1024 / 1769, 1024 * 1_048_576);
  assert.equal(read(join(root, "cpu", "lnblabp2", "e0", "cpu.cfs_quota_us")), "57886");
  assert.equal(read(join(root, "cpu", "lnblabp2", "e0", "cpu.cfs_period_us")), "100000");
  assert.equal(read(join(memoryDir, "memory.limit_in_bytes")), `${1024 * 1_048_576}`);
  assert.equal(read(join(memoryDir, "memory.memsw.limit_in_bytes")), `${1024 * 1_048_576}`);
  writeFileSync(join(memoryDir, "memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n");
  assert.equal(await driver.oomKillCount(cgroup), 3);
  assert.equal(
    joinCgroupScript(cgroup),
    `echo $$ > '${join(root, "cpu", "lnblabp2", "e0")}/cgroup.procs' && echo $$ > '${memoryDir}/cgroup.procs'`,
  );
  assert.deepEqual((await driver.cloudCgroup("lnblabp2")).dirs, [join(root, "cpu", "lnblabp2", "cloud")]);
});

test("choice: v2 when its controllers list cpu and memory (pure or hybrid), else v1, else the missing one named", () => {
  const pure = fakeV2Root("pure");
  const pureMounts = `sysfs /sys sysfs rw 0 0\ncgroup2 ${pure} cgroup2 rw,nosuid 0 0\n`;
  assert.equal(cgroup2Mount(pureMounts), pure);
  assert.equal(chooseCgroups(join(temp, "none"), pureMounts).driver?.version, 2);

  // hybrid like this build machine: v2 at .../unified without cpu and memory, v1 has them
  const v1Root = join(temp, "hybrid");
  mkdirSync(join(v1Root, "cpu"), { recursive: true });
  mkdirSync(join(v1Root, "memory"), { recursive: true });
  writeFileSync(join(v1Root, "cpu", "cpu.cfs_quota_us"), "-1");
  writeFileSync(join(v1Root, "memory", "memory.limit_in_bytes"), "9223372036854771712");
  const unified = fakeV2Root("hybrid/unified", "hugetlb");
  const hybridMounts = `cgroup2 ${unified} cgroup2 rw 0 0\ncgroup ${v1Root}/cpu cgroup rw,cpu 0 0\n`;
  assert.equal(chooseCgroups(v1Root, hybridMounts).driver?.version, 1);
  // a hybrid host whose unified hierarchy has cpu and memory uses v2
  writeFileSync(join(unified, "cgroup.controllers"), "cpu memory pids\n");
  assert.equal(chooseCgroups(v1Root, hybridMounts).driver?.version, 2);

  const noMemory = fakeV2Root("no-memory", "cpu io pids");
  const choice = chooseCgroups(join(temp, "none"), `cgroup2 ${noMemory} cgroup2 rw 0 0\n`);
  assert.equal(choice.driver, null);
  assert.match(choice.problem ?? "", /no cgroup memory controller/);
  assert.match(choice.problem ?? "", /offers: cpu io pids/);
});
