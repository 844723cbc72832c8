/** Fake static credentials: moto accepts any; nothing in the rehearsal may reach a real account. */
export const REHEARSAL_CREDENTIALS = {
  accessKeyId: "AKIAREHEARSAL0000001",
  secretAccessKey: "rehearsal-secret-access-key-not-a-real-one",
};
