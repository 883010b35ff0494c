/**
 * `npm run docs`: writes docs/reference.md from action.yml (see reference-doc.ts). Run it after
 * changing an input or an output; CI fails when the committed page differs from what it writes.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { REFERENCE_PATH, renderReference } from './reference-doc.js'

const root = join(import.meta.dirname, '..', '..')
const page = renderReference(readFileSync(join(root, 'action.yml'), 'utf8'))
writeFileSync(join(root, REFERENCE_PATH), page)
console.log(`Wrote ${REFERENCE_PATH} from action.yml.`)
