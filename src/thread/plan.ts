import { createHash } from 'node:crypto'

/** Hex characters of a plan's SHA-256 the tracking comment's marker keeps (64 bits: no one forges a plan to match it). */
const DIGEST_HEX_CHARS = 16

/** The digest an approval is pinned to: of the plan's whole text, as the tracking comment showed it. */
export function planDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, DIGEST_HEX_CHARS)
}
