import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readWorkspaceFile } from '../../../src/workspace-file.js'

describe('workspace-file', () => {
  /** The one rule for a file an input names (images, runs, output-schema): inside the workspace, a file, bounded. */

  const top = mkdtempSync(join(tmpdir(), 'workspace-file-'))
  const workspace = join(top, 'workspace')
  const outside = join(top, 'secret.txt')
  mkdirSync(join(workspace, 'sub'), { recursive: true })
  writeFileSync(join(workspace, 'sub', 'a.txt'), 'inside')
  writeFileSync(join(workspace, '..dots.txt'), 'a name that begins with two dots')
  writeFileSync(outside, 'the runner credentials')
  symlinkSync(outside, join(workspace, 'link-out.txt'))
  symlinkSync(join(workspace, 'sub', 'a.txt'), join(workspace, 'link-in.txt'))
  // The workspace reached through a link: the rule compares real paths on both sides.
  symlinkSync(workspace, join(top, 'workspace-link'))
  afterAll(() => rmSync(top, { recursive: true, force: true }))

  const text = (result: ReturnType<typeof readWorkspaceFile>): unknown =>
    'bytes' in result ? result.bytes.toString('utf8') : result

  describe('readWorkspaceFile', () => {
    test('reads a file inside the workspace, by a relative or an absolute path, or through a link inside', () => {
      expect(text(readWorkspaceFile('sub/a.txt', workspace, 100))).toBe('inside')
      expect(text(readWorkspaceFile('./sub/../sub/a.txt', workspace, 100))).toBe('inside')
      expect(text(readWorkspaceFile(join(workspace, 'sub', 'a.txt'), workspace, 100))).toBe('inside')
      expect(text(readWorkspaceFile('link-in.txt', workspace, 100))).toBe('inside')
      expect(text(readWorkspaceFile('sub/a.txt', join(top, 'workspace-link'), 100))).toBe('inside')
      expect(text(readWorkspaceFile('..dots.txt', workspace, 100))).toBe('a name that begins with two dots')
    })

    test('refuses a file outside, however it is reached, naming the workspace as resolved', () => {
      const root = realpathSync(workspace)
      expect(readWorkspaceFile('../secret.txt', workspace, 100)).toEqual({ refused: 'outside', root })
      expect(readWorkspaceFile(outside, workspace, 100)).toEqual({ refused: 'outside', root })
      expect(readWorkspaceFile('link-out.txt', workspace, 100)).toEqual({ refused: 'outside', root })
      expect(readWorkspaceFile('..', workspace, 100)).toEqual({ refused: 'outside', root })
      expect(readWorkspaceFile('link-out.txt', join(top, 'workspace-link'), 100)).toEqual({
        refused: 'outside',
        root
      })
    })

    test('refuses what is missing, a folder, and a file larger than the bound before reading it', () => {
      expect(readWorkspaceFile('missing.txt', workspace, 100)).toEqual({ refused: 'unreadable' })
      expect(readWorkspaceFile('sub/a.txt', join(top, 'no-such-workspace'), 100)).toEqual({
        refused: 'unreadable'
      })
      expect(readWorkspaceFile('sub', workspace, 100)).toEqual({ refused: 'not-a-file' })
      expect(readWorkspaceFile('sub/a.txt', workspace, 5)).toEqual({ refused: 'too-large', size: 6 })
      expect(text(readWorkspaceFile('sub/a.txt', workspace, 6))).toBe('inside')
    })
  })
})
