import { imageType } from '../image-type.js'
import { readWorkspaceFile, type WorkspaceFileRefusal } from '../workspace-file.js'

/** The service takes images as base64 data URIs; a run's images together may not exceed this. */
export const MAX_IMAGES_BYTES = 10 * 1024 * 1024

const DATA_URI_HEAD = /^data:image\/(png|jpeg|gif|webp);base64,/
const NOT_BASE64 = /[^A-Za-z0-9+/]/

/**
 * A base64 image data URI. The body is searched for a character outside base64, not matched whole:
 * one pattern over megabytes of base64 grew V8's backtracking stack until it overflowed.
 */
function isDataUri(line: string): boolean {
  const head = DATA_URI_HEAD.exec(line)
  if (!head) return false
  const body = line.slice(head[0].length).replace(/={1,2}$/, '')
  return body.length > 0 && !NOT_BASE64.test(body)
}

/**
 * Turns the `images` input (one data URI or file path a line) into data URIs. Files must lie inside
 * the workspace: a workflow input must not be able to send, say, the runner's credentials files.
 * Returns the data URIs; pushes each problem found into `problems`.
 */
export function readImages(input: string, workspace: string, problems: string[]): string[] {
  const images: string[] = []
  const lines = input
    .split(/\r?\n/)
    .map(line => line.trim())
    .filter(Boolean)
  for (const line of lines) {
    if (line.startsWith('data:')) {
      if (isDataUri(line)) images.push(line)
      else
        problems.push(
          `images: "${line.slice(0, 40)}…" is not a base64 image data URI (expected data:image/png|jpeg|gif|webp;base64,...)`
        )
      continue
    }
    // Past the cap, files are only checked, not read: a long list of large files costs no memory.
    const room = MAX_IMAGES_BYTES - encodedLength(images)
    const image = readImageFile(line, workspace, room, problems)
    if (image !== undefined) images.push(image)
  }
  const total = encodedLength(images)
  if (total > MAX_IMAGES_BYTES) {
    problems.push(
      `images: ${(total / 1024 / 1024).toFixed(1)} MiB once encoded; at most ${MAX_IMAGES_BYTES / 1024 / 1024} MiB in all is accepted`
    )
  }
  return images
}

function encodedLength(images: string[]): number {
  return images.reduce((sum, uri) => sum + uri.length, 0)
}

function readImageFile(
  path: string,
  workspace: string,
  room: number,
  problems: string[]
): string | undefined {
  // Base64 makes 4 characters of every 3 bytes: the most bytes whose encoding fits the room left.
  const fits = Math.floor(room / 4) * 3
  const file = readWorkspaceFile(path, workspace, Math.min(MAX_IMAGES_BYTES, fits))
  if (!('bytes' in file)) {
    problems.push(refusal(path, file))
    return undefined
  }
  const type = imageType(file.bytes)
  if (type) return `data:image/${type};base64,${file.bytes.toString('base64')}`
  problems.push(`images: "${path}" is not a PNG, JPEG, GIF or WebP image`)
  return undefined
}

function refusal(path: string, file: WorkspaceFileRefusal): string {
  switch (file.refused) {
    case 'unreadable':
      return `images: "${path}" is neither a data URI nor a readable file`
    case 'outside':
      return `images: "${path}" is outside the workspace (${file.root}); only files inside it can be sent`
    case 'not-a-file':
      return `images: "${path}" is not a file`
    case 'too-large':
      return file.size > MAX_IMAGES_BYTES
        ? `images: "${path}" is larger than ${MAX_IMAGES_BYTES / 1024 / 1024} MiB`
        : `images: "${path}" would take the images past ${MAX_IMAGES_BYTES / 1024 / 1024} MiB in all once encoded`
  }
}
