import { constants, createHash, privateDecrypt, timingSafeEqual } from "node:crypto";
import { IperfErrno } from "./iperf-errno.js";
import { ServerFailure } from "./server-failure.js";

/** The server side of iperf3 RSA authentication (protocol doc section 6.2). */
export interface ServerAuth {
  privateKeyPem: string;
  /** user -> lowercase hex sha256 of "{user}password" (the iperf3 users file). */
  users: Map<string, string>;
  /** Allowed |server clock - token timestamp|; iperf3's default is 10. */
  skewSeconds?: number;
}

/** Parses an iperf3 `--authorized-users-path` file: `user,sha256hex` lines; `#`, blank and comma-less lines skipped. */
export function parseAuthorizedUsers(text: string): Map<string, string> {
  const users = new Map<string, string>();
  for (const rawLine of text.split("\n")) {
    const line = rawLine.replace(/\r$/, "");
    if (line.startsWith("#") || line.length === 0) continue;
    const comma = line.indexOf(",");
    if (comma < 0) continue;
    users.set(
      line.slice(0, comma),
      line
        .slice(comma + 1)
        .trim()
        .toLowerCase(),
    );
  }
  return users;
}

export function passwordHash(user: string, password: string): string {
  return createHash("sha256").update(`{${user}}${password}`).digest("hex");
}

/**
 * Checks an `authtoken`: RSA-OAEP (SHA-1) ciphertext, base64, of
 * "user: U\npwd:  P\nts:   SECONDS". Node refuses PKCS#1 v1.5 private decryption, so tokens
 * from 3.12-3.16 clients (which only use PKCS#1 v1.5) are refused like a wrong password.
 * Returns the user name; throws ServerFailure 142 otherwise. Never logs the password.
 */
export function checkAuthToken(token: string | undefined, auth: ServerAuth, nowSeconds: number): string {
  const refuse = (why: string) => new ServerFailure(IperfErrno.IEAUTHTEST, `authentication failed: ${why}`);
  if (token === undefined) throw refuse("the client sent no authtoken");
  if (token.length > 4096) throw refuse("authtoken too long");
  let plain: string;
  try {
    plain = privateDecrypt(
      { key: auth.privateKeyPem, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: "sha1" },
      Buffer.from(token, "base64"),
    ).toString("latin1");
  } catch {
    throw refuse("authtoken does not decrypt with RSA-OAEP (clients before 3.17 use PKCS#1 v1.5)");
  }
  const match = /^user:\s+(\S+)\s*\npwd:\s+(\S+)\s*\nts:\s+(-?\d+)\s*$/.exec(plain);
  if (!match) throw refuse("authtoken plaintext is not in the iperf3 layout");
  const [, user = "", password = "", ts = "0"] = match;
  const skew = auth.skewSeconds ?? 10;
  if (Math.abs(nowSeconds - Number(ts)) > skew) {
    throw refuse(`user ${user}: token timestamp ${ts} is more than ${skew} s from the server clock`);
  }
  const expected = auth.users.get(user);
  const given = Buffer.from(passwordHash(user, password), "latin1");
  if (expected === undefined || expected.length !== given.length)
    throw refuse(`unknown user ${user} or wrong password`);
  if (!timingSafeEqual(Buffer.from(expected, "latin1"), given)) {
    throw refuse(`unknown user ${user} or wrong password`);
  }
  return user;
}
