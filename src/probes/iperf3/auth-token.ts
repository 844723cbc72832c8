import { constants, publicEncrypt } from "node:crypto";
import type { Iperf3Auth } from "./options.js";

/** The credentials a client authenticates with: the event's `auth` (one definition, options.ts). */
export type AuthCredentials = Iperf3Auth;

/** The plaintext the server parses (protocol doc 6.1): note one, two and three spaces. */
export function authPlaintext(username: string, password: string, unixSeconds: number): string {
  return `user: ${username}\npwd:  ${password}\nts:   ${unixSeconds}`;
}

/** The `authtoken` parameter: the plaintext RSA-encrypted with the server's public key, base64 without breaks. */
export function makeAuthToken(credentials: AuthCredentials, nowMs = Date.now()): string {
  const plain = authPlaintext(credentials.username, credentials.password, Math.floor(nowMs / 1000));
  const ciphertext = publicEncrypt(
    {
      key: credentials.publicKeyPem,
      padding:
        credentials.padding === "pkcs1" ? constants.RSA_PKCS1_PADDING : constants.RSA_PKCS1_OAEP_PADDING,
      oaepHash: "sha1",
    },
    Buffer.from(plain, "ascii"),
  );
  return ciphertext.toString("base64");
}
