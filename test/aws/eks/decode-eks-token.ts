/** What a token decodes to: the presigned URL and its query. */
export function decodeEksToken(token: string): { url: URL; query: Record<string, string> } {
  const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
  return { url, query: Object.fromEntries(url.searchParams) };
}
