/**
 * The XML text escaping both sides of the S3 wire use: the probe reading S3's response and
 * error documents and writing CompleteMultipartUpload, and the lab's S3 server writing those
 * documents and reading the probe's. One definition, so the two sides cannot drift apart.
 */

export function escapeXml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** The five predefined entities back to their characters; `&amp;` last, so `&amp;lt;` stays `&lt;`. */
export function unescapeXml(text: string): string {
  return text
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
}

/** The unescaped text of the first `<tag>` element without children, or null when there is none. */
export function xmlText(xml: string, tag: string): string | null {
  const match = xml.match(new RegExp(`<${tag}>([^<]*)</${tag}>`));
  return match?.[1] === undefined ? null : unescapeXml(match[1]);
}
