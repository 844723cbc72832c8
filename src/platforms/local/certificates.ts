import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { runCommand } from "./run-command.js";

/**
 * The lab's own CA (generated at `lab up` with openssl) and the S3 server's certificate for
 * the service address. The agent trusts the CA through the event's caPem, like a client
 * configured for a private endpoint; nothing is added to the machine's trust store.
 */
export interface LabCertificates {
  caFile: string;
  certificateFile: string;
  keyFile: string;
}

export async function createCertificates(dir: string, addresses: string[]): Promise<LabCertificates> {
  const caKey = join(dir, "ca.key");
  const caFile = join(dir, "ca.pem");
  const keyFile = join(dir, "server.key");
  const csr = join(dir, "server.csr");
  const certificateFile = join(dir, "server.pem");
  const extensions = join(dir, "server.ext");
  const ecKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
  await runCommand("openssl", [
    "req",
    "-x509",
    ...ecKey,
    "-keyout",
    caKey,
    "-out",
    caFile,
    "-days",
    "30",
    "-subj",
    "/CN=lambda-netbench lab CA",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ]);
  await runCommand("openssl", [
    "req",
    ...ecKey,
    "-keyout",
    keyFile,
    "-out",
    csr,
    "-subj",
    `/CN=${addresses[0]}`,
  ]);
  const altNames = addresses.map((address) =>
    /^[0-9.]+$/.test(address) ? `IP:${address}` : `DNS:${address}`,
  );
  await writeFile(
    extensions,
    `subjectAltName=${altNames.join(",")}\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n`,
  );
  await runCommand("openssl", [
    "x509",
    "-req",
    "-in",
    csr,
    "-CA",
    caFile,
    "-CAkey",
    caKey,
    "-CAcreateserial",
    "-out",
    certificateFile,
    "-days",
    "30",
    "-extfile",
    extensions,
  ]);
  return { caFile, certificateFile, keyFile };
}
