import { constants, publicEncrypt } from "node:crypto";

export type RsaPadding = "pkcs1" | "oaep";

export interface AuthCredentials {
  username: string;
  password: string;
  /** PEM SubjectPublicKeyInfo of the server's RSA key. */
  publicKeyPem: string;
  /** PKCS#1 v1.5 for servers up to 3.16, OAEP (SHA-1, empty label) for 3.17+. No negotiation exists. */
  padding: RsaPadding;
}

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
