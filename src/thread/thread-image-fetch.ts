import { CancelledError, type Clock } from '../clock.js'
import type { GitHubApi, TextSource } from '../github/api.js'
import type { ImageLeftOut, ThreadImages } from '../model.js'
import { MAX_IMAGES_BYTES } from '../settings/images.js'
import { downloadImage, type ImageHosts } from './image-download.js'
import {
  chooseImages,
  findImages,
  MAX_IMAGES,
  textPlace,
  withPlaceholders,
  type FoundImages
} from './thread-images.js'

/**
 * The thread's images gathered before its run starts (issue 45): each text the prompt quotes read
 * again with its HTML (full+json), its images found and matched (thread-images.ts), downloaded one
 * after another from GitHub's image hosts within the caps left by the `images` input, and the texts
 * given their placeholders. GitHub's and the hosts' failures are warnings: the run starts anyway.
 */

export interface ThreadImageDeps {
  github: GitHubApi
  /** Network.images: the images' own fetch, no credential on it. */
  fetch: typeof fetch
  clock: Clock
  /** The step's deadline and the job's cancellation: aborted, no more is downloaded. */
  signal: AbortSignal
  hosts: ImageHosts
  warn: (message: string) => void
}

/** A text the prompt quotes: where GitHub has it alone, what it is, and the part quoted. */
export interface ImageSource {
  source: TextSource
  kind: 'comment' | 'review' | 'code comment' | 'body'
  /** The text as the prompt quotes it (a comment's instruction, the thread's body). */
  text: string
}

export interface GatheredImages {
  /** Each source's text as a reader sees it, its images sent named by their placeholders. */
  texts: string[]
  /** The images sent, in order, each with the index of its source. */
  images: Array<{ dataUri: string; where: string; source: number }>
  leftOut: ThreadImages['leftOut']
  /** Each source's place, as the placeholders and reports name it. */
  places: string[]
}

/** A data URI's head (`data:image/webp;base64,`) at most: counted with the image against the 10 MiB. */
const DATA_URI_HEAD_CHARS = 23

/**
 * The images of `sources` (undefined when no text refers to one) in the order they go (the asking
 * comment's first, then newest to oldest), after `taken` of the `images` input: at most MAX_IMAGES
 * in all, and MAX_IMAGES_BYTES of data URIs with them. Stops at a cancellation or the deadline
 * (`deps.signal`) with what it has: the caller then starts nothing. An image that failed is one
 * warning; one over the caps is no failure, and only the reports count it.
 */
export async function gatherImages(
  sources: ImageSource[],
  thread: 'issue' | 'pull request',
  taken: { count: number; bytes: number },
  deps: ThreadImageDeps
): Promise<GatheredImages | undefined> {
  // A text without an image reference is not read again: no request for a thread of words alone.
  const bare = sources.map(source => findImages({ where: '', text: source.text, html: '' }, deps.hosts))
  if (bare.every(text => text.references.length === 0)) return undefined
  const found = await readTexts(sources, bare, thread, deps)
  const { chosen, leftOut } = chooseImages(found, Math.max(0, MAX_IMAGES - taken.count))
  const images: GatheredImages['images'] = []
  const numbers = new Map<string, number>()
  let room = MAX_IMAGES_BYTES - taken.bytes
  const leave = (where: string, why: ImageLeftOut, detail: string): void => {
    leftOut.push({ where, why })
    if (why !== 'cap') deps.warn(`An image in ${where} is not sent with the run: ${detail}.`)
  }
  for (const image of chosen) {
    if (deps.signal.aborted) break
    // Base64 writes 4 characters for each 3 bytes begun: whole groups keep the URI within the room.
    const maxBytes = Math.floor((room - DATA_URI_HEAD_CHARS) / 4) * 3
    if (maxBytes <= 0) {
      leave(image.where, 'cap', '')
      continue
    }
    let result
    try {
      result = await downloadImage(image.url, deps, maxBytes)
    } catch (error) {
      if (error instanceof CancelledError) break
      throw error
    }
    if (!result.ok) {
      // Too big for the room left, though within an image's own 10 MiB: the cap of all.
      const why = result.why === 'too-big' && maxBytes < MAX_IMAGES_BYTES ? 'cap' : result.why
      leave(image.where, why, result.detail)
      continue
    }
    room -= result.dataUri.length
    images.push({ dataUri: result.dataUri, where: image.where, source: sourceOf(found, image.key) })
    numbers.set(image.key, taken.count + images.length)
  }
  const texts = found.map(text => withPlaceholders(text, numbers))
  return { texts, images, leftOut, places: found.map(text => text.where) }
}

/**
 * Each text with an image reference read again with its HTML, the others as they are. An issue
 * opened with the phrase is both the request and the body: its HTML is read once.
 */
async function readTexts(
  sources: ImageSource[],
  bare: FoundImages[],
  thread: 'issue' | 'pull request',
  deps: ThreadImageDeps
): Promise<FoundImages[]> {
  const read = new Map<string, ReturnType<GitHubApi['renderedText']>>()
  const github: Pick<GitHubApi, 'renderedText'> = {
    renderedText: source => {
      const key = JSON.stringify(source)
      const known = read.get(key) ?? deps.github.renderedText(source)
      read.set(key, known)
      return known
    }
  }
  const found: FoundImages[] = []
  for (const [index, source] of sources.entries()) {
    const text = bare[index] as FoundImages
    found.push(text.references.length === 0 ? text : await readText(source, thread, { ...deps, github }))
  }
  return found
}

/** The text read again with its HTML; unreadable, its images are found in its text alone (a warning). */
async function readText(
  source: ImageSource,
  thread: 'issue' | 'pull request',
  deps: Omit<ThreadImageDeps, 'github'> & { github: Pick<GitHubApi, 'renderedText'> }
): Promise<FoundImages> {
  let html = ''
  let where = textPlace(source.kind, '', '', thread)
  try {
    const rendered = await deps.github.renderedText(source.source)
    html = rendered.html
    where = textPlace(source.kind, rendered.author.login, rendered.createdAt, thread)
  } catch (error) {
    // Without the HTML's signed addresses, an attachment is fetched by its own link: a public
    // repository's answer it, a private one's do not (that image's failure is a warning of its own).
    deps.warn(
      `Could not read ${where} with its HTML from GitHub (${(error as Error).message}): its images are fetched by their own links, which a private repository's do not answer.`
    )
  }
  return findImages({ where, text: source.text, html }, deps.hosts)
}

/** The index of the first text holding the image `key`. */
function sourceOf(found: FoundImages[], key: string): number {
  return found.findIndex(text => text.references.some(reference => reference.key === key))
}
