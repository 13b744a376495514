/** RFC 3339 with second precision and `Z`, as Go's `time.RFC3339` and metav1.Time write it. */
export function rfc3339(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
