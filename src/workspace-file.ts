import { readFileSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, relative, resolve, sep } from 'node:path'

/** Why a file named by an input was not read; each input words the message itself. */
export type WorkspaceFileRefusal =
  /** Missing, or not readable (the workspace itself included). */
  | { refused: 'unreadable' }
  /** Outside the workspace once links are followed; `root` is the workspace as resolved. */
  | { refused: 'outside'; root: string }
  | { refused: 'not-a-file' }
  /** Larger than the input allows: `size` bytes. */
  | { refused: 'too-large'; size: number }

/**
 * The one confinement rule for a file an input names (`images`, `runs`, `output-schema`): the path
 * is taken from the workspace, every link is followed, and the file must still lie inside it (a
 * workflow input must not send or read the runner's other files, its credentials), be a file, and
 * hold at most `maxBytes`, all checked before a byte is read.
 */
export function readWorkspaceFile(
  path: string,
  workspace: string,
  maxBytes: number
): { bytes: Buffer } | WorkspaceFileRefusal {
  let root: string
  let real: string
  try {
    root = realpathSync(workspace)
    real = realpathSync(resolve(root, path))
  } catch {
    return { refused: 'unreadable' }
  }
  const inside = relative(root, real)
  // A name may begin with two dots ("..shot.png"); only a first segment of exactly ".." climbs out.
  if (inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside))
    return { refused: 'outside', root }
  try {
    const stats = statSync(real)
    if (!stats.isFile()) return { refused: 'not-a-file' }
    if (stats.size > maxBytes) return { refused: 'too-large', size: stats.size }
    const bytes = readFileSync(real)
    // A file that grew between the look and the read is held to the same bound.
    return bytes.length > maxBytes ? { refused: 'too-large', size: bytes.length } : { bytes }
  } catch {
    return { refused: 'unreadable' }
  }
}
