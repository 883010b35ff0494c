/**
 * The image types the service takes, told by their first bytes, never by a name or a Content-Type:
 * the `images` input's files and the thread's downloads alike.
 */
export type ImageType = 'png' | 'jpeg' | 'gif' | 'webp'

/** The fewest first bytes that tell every type apart (WebP's "WEBP" ends at byte 12). */
export const IMAGE_SIGNATURE_BYTES = 12

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function startsWith(bytes: Uint8Array, expected: readonly number[], at = 0): boolean {
  return expected.every((byte, i) => bytes[at + i] === byte)
}

function ascii(text: string): number[] {
  return [...text].map(char => char.charCodeAt(0))
}

const SIGNATURES: Array<{ type: ImageType; matches: (bytes: Uint8Array) => boolean }> = [
  { type: 'png', matches: b => startsWith(b, PNG) },
  { type: 'jpeg', matches: b => startsWith(b, [0xff, 0xd8, 0xff]) },
  { type: 'gif', matches: b => startsWith(b, ascii('GIF87a')) || startsWith(b, ascii('GIF89a')) },
  { type: 'webp', matches: b => startsWith(b, ascii('RIFF')) && startsWith(b, ascii('WEBP'), 8) }
]

/** The image's type by its first bytes, or undefined for anything else (SVG, HTML, too short). */
export function imageType(bytes: Uint8Array): ImageType | undefined {
  return SIGNATURES.find(signature => signature.matches(bytes))?.type
}
