import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { problemsOf as problemsOfReading, readInputs, type Inputs } from '../../support/read-inputs.js'

describe('images', () => {
  /** The images input, as readSettings reads it: data URIs, or image files confined to the workspace, within 10 MiB. */

  const workspace = mkdtempSync(join(tmpdir(), 'images-'))
  afterAll(() => rmSync(workspace, { recursive: true, force: true }))
  const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex')
  const valid = { 'api-token': 'tok-123456', 'org-id': '7', prompt: 'Fix it' }

  const settingsFrom = (inputs: Inputs) => readInputs(inputs, {}, { GITHUB_WORKSPACE: workspace })
  const problemsOf = (inputs: Inputs): string[] => problemsOfReading(() => settingsFrom(inputs))

  test('images: data URIs pass, files inside the workspace are encoded, others are refused', () => {
    writeFileSync(join(workspace, 'shot.png'), PNG)
    writeFileSync(join(workspace, 'notes.txt'), 'hello')
    const uri = 'data:image/png;base64,iVBORw0KGgo='
    const settings = settingsFrom({ ...valid, images: `${uri}\n shot.png \n` })
    expect(settings.images).toEqual([uri, `data:image/png;base64,${PNG.toString('base64')}`])

    expect(problemsOf({ ...valid, images: 'data:text/plain;base64,aGk=' })[0]).toMatch(
      /not a base64 image data URI/
    )
    // base64 only, with at most two = at its end, and something before them.
    for (const bad of [
      'data:image/png;base64,',
      'data:image/png;base64,===',
      'data:image/png;base64,aG=k',
      'data:image/png;base64,aG k'
    ])
      expect(problemsOf({ ...valid, images: bad })[0]).toMatch(/not a base64 image data URI/)
    expect(problemsOf({ ...valid, images: 'data:image/webp;base64,aG+/9==' })).toEqual([])
    expect(problemsOf({ ...valid, images: 'notes.txt' })[0]).toMatch(
      /"notes.txt" is not a PNG, JPEG, GIF or WebP/
    )
    expect(problemsOf({ ...valid, images: 'missing.png' })[0]).toMatch(
      /neither a data URI nor a readable file/
    )
    expect(problemsOf({ ...valid, images: '/etc/hostname' })[0]).toMatch(/is outside the workspace/)
    expect(problemsOf({ ...valid, images: '../../etc/hostname' })[0]).toMatch(/is outside the workspace/)
    // A link inside the workspace that points out of it is outside too; a name with two dots is not.
    symlinkSync('/etc/hostname', join(workspace, 'link.png'))
    expect(problemsOf({ ...valid, images: 'link.png' })[0]).toMatch(/is outside the workspace/)
    writeFileSync(join(workspace, '..shot.png'), PNG)
    expect(problemsOf({ ...valid, images: '..shot.png' })).toEqual([])
  })

  test('images: the total encoded size is capped', () => {
    const big = `data:image/png;base64,${'A'.repeat(6 * 1024 * 1024)}`
    expect(problemsOf({ ...valid, images: `${big}\n${big}` })).toEqual([
      'images: 12.0 MiB once encoded; at most 10 MiB in all is accepted'
    ])
    // Files past the cap are refused before they are read.
    writeFileSync(join(workspace, 'large.png'), Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]))
    expect(problemsOf({ ...valid, images: `${big}\nlarge.png` })).toEqual([
      'images: "large.png" would take the images past 10 MiB in all once encoded'
    ])
  })
})
