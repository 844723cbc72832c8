/** The two instruction sets Lambda offers (and the lab labels its environments with). */
export type Architecture = "arm64" | "x86_64";
