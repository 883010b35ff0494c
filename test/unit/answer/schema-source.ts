import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadSchema } from '../../../src/answer/schema-source.js'

describe('schema-source', () => {
  const root = mkdtempSync(join(tmpdir(), 'schema-test-'))
  const workspace = join(root, 'workspace')
  mkdirSync(join(workspace, 'schemas'), { recursive: true })
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  describe('loadSchema: JSON or YAML text, or a file in the workspace', () => {
    const expected = { type: 'object', required: ['files'] }

    test('JSON text and YAML text', () => {
      expect(loadSchema('{"type": "object", "required": ["files"]}', workspace)).toEqual({ schema: expected })
      expect(loadSchema('type: object\nrequired:\n  - files\n', workspace)).toEqual({ schema: expected })
      expect(loadSchema('{type: object, required: [files]}', workspace)).toEqual({ schema: expected })
    })

    test('a .json, .yaml or .yml file inside the workspace, by a relative or absolute path', () => {
      writeFileSync(join(workspace, 'schemas', 'answer.json'), JSON.stringify(expected))
      writeFileSync(join(workspace, 'answer.yml'), 'type: object\nrequired: [files]\n')
      writeFileSync(join(workspace, 'answer.YAML'), 'type: object\nrequired: [files]\n')
      expect(loadSchema('schemas/answer.json', workspace)).toEqual({ schema: expected })
      expect(loadSchema('./answer.yml', workspace)).toEqual({ schema: expected })
      expect(loadSchema(join(workspace, 'answer.YAML'), workspace)).toEqual({ schema: expected })
    })

    test('a missing file, a file outside the workspace, or a link out of it, is refused', () => {
      writeFileSync(join(root, 'outside.json'), JSON.stringify(expected))
      symlinkSync(join(root, 'outside.json'), join(workspace, 'link.json'))
      expect(loadSchema('schemas/missing.json', workspace)).toEqual({
        problem: `the file "schemas/missing.json" is not in the workspace (${workspace})`
      })
      expect(loadSchema('../outside.json', workspace)).toMatchObject({
        problem: expect.stringMatching(/^the file "..\/outside.json" is outside the workspace/)
      })
      expect(loadSchema('link.json', workspace)).toMatchObject({
        problem: expect.stringMatching(/^the file "link.json" is outside the workspace/)
      })
      mkdirSync(join(workspace, 'folder.json'))
      expect(loadSchema('folder.json', workspace)).toEqual({ problem: '"folder.json" is not a file' })
    })

    test('text that is not a schema object', () => {
      expect(loadSchema('an object with a list of files', workspace)).toEqual({
        problem: 'it is not a JSON Schema object (such as {"type": "object", ...})'
      })
      expect(loadSchema('[1, 2]', workspace)).toMatchObject({
        problem: expect.stringMatching(/not a JSON Schema object/)
      })
      expect(loadSchema('type: object\n  required: [', workspace)).toMatchObject({
        problem: expect.stringMatching(/^it is neither JSON nor YAML: /)
      })
      writeFileSync(join(workspace, 'bad.yml'), 'type: [object\n')
      expect(loadSchema('bad.yml', workspace)).toMatchObject({
        problem: expect.stringMatching(/^the file "bad.yml" is neither JSON nor YAML: /)
      })
    })
  })
})
