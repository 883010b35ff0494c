import { readdirSync } from 'node:fs'
import { join } from 'node:path'

/** The repository's folder. */
export const ROOT = join(import.meta.dirname ?? '.', '..', '..')

/** The pages written for users, from the repository's folder: README.md and the pages of docs/. */
export const USER_PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter(file => file.endsWith('.md'))
    .map(file => `docs/${file}`)
]
