import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A throwaway CA and a server certificate signed by it, made with the stock openssl. */
export interface TestTls {
  dir: string;
  caPath: string;
  caPem: string;
  keyPath: string;
  certPath: string;
  key: string;
  cert: string;
  remove(): void;
}

export function createTestTls(ipAddresses: string[] = ["127.0.0.1"]): TestTls {
  const dir = mkdtempSync(join(tmpdir(), "lnb-tls-"));
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) =>
    execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  openssl(
    "req",
    "-x509",
    ...ec,
    "-keyout",
    file("ca.key"),
    "-out",
    file("ca.pem"),
    "-days",
    "3",
    "-subj",
    "/CN=lambda-netbench test CA",
  );
  openssl(
    "req",
    ...ec,
    "-keyout",
    file("server.key"),
    "-out",
    file("server.csr"),
    "-subj",
    "/CN=lambda-netbench test server",
  );
  const altNames = ["DNS:localhost", ...ipAddresses.map((ip) => `IP:${ip}`)].join(",");
  writeFileSync(file("ext.cnf"), `subjectAltName=${altNames}\nbasicConstraints=CA:FALSE\n`);
  openssl(
    "x509",
    "-req",
    "-in",
    file("server.csr"),
    "-CA",
    file("ca.pem"),
    "-CAkey",
    file("ca.key"),
    "-CAcreateserial",
    "-out",
    file("server.pem"),
    "-days",
    "3",
    "-extfile",
    file("ext.cnf"),
  );
  return {
    dir,
    caPath: file("ca.pem"),
    caPem: readFileSync(file("ca.pem"), "utf8"),
    keyPath: file("server.key"),
    certPath: file("server.pem"),
    key: readFileSync(file("server.key"), "utf8"),
    cert: readFileSync(file("server.pem"), "utf8"),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
