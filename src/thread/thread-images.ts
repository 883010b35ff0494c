import type { ImageLeftOut } from '../model.js'
import { isFetchable, type ImageHosts } from './image-download.js'
import { stripHidden } from './thread-prompt.js'

/**
 * The images of a thread's texts (issue 45), pure: found in a text as a reader sees it (Markdown
 * images, reference-style ones included, and `<img src>`), matched to the signed addresses of
 * GitHub's HTML of the text, chosen in order within the caps, and replaced in the prompt by a
 * placeholder naming the image's number. Linear in the texts' lengths, and bounded: at most
 * MAX_REFERENCES references of a text and MAX_HTML_IMAGES images of its HTML are looked at.
 */

/**
 * A text's references past this many stay as written, only counted as left out for the cap (each
 * image once): 5,000 in a hostile text cost a pass over it and their keys.
 */
export const MAX_REFERENCES = 100
/** Images of a text's HTML past this many are not read. */
export const MAX_HTML_IMAGES = 200
/** The run's images at most, the `images` input's counted (the service's 10 MiB is MAX_IMAGES_BYTES). */
export const MAX_IMAGES = 10

/** One text of the thread that the prompt quotes. */
export interface ThreadText {
  /** Where it is, for the placeholder and the reports: "@alice's comment of 2026-12-01". */
  where: string
  /** The text as written (Markdown), or the part of it the prompt quotes (a comment's instruction). */
  text: string
  /** GitHub's HTML of the whole text (full+json's `body_html`); '' when it was not read. */
  html: string
}

/** One image reference in a text as a reader sees it. */
export interface ImageReference {
  /** Where it stands in `FoundImages.visible`: the placeholder takes its place. */
  start: number
  end: number
  /** The address to download: the signed one of the HTML when matched, else the text's own. */
  url: string
  /** May be downloaded (GitHub's image hosts, https, no credential); else it stays a link. */
  fetchable: boolean
  /** Two references of one image share it: the attachment's id, or the address. */
  key: string
}

export interface FoundImages {
  where: string
  /** The text as a reader sees it (stripHidden): the references' offsets are in it. */
  visible: string
  references: ImageReference[]
  /** The keys of the images a reader sees past MAX_REFERENCES that could be downloaded, each once. */
  beyond: string[]
}

/**
 * A Markdown image once stripHidden emptied its alt and resolved its label (`![](url "title")`), or an
 * `<img>` tag (to its end, or the text's when unclosed, so that one pass never rescans). Quantifiers
 * are bounded so that an attempt that fails costs a constant.
 */
const REFERENCE =
  /!\[\]\([ \t\n]{0,20}(?:<([^<>\n]{1,4096})>|([^\s()<>]{1,4096}))(?:[ \t\n]{1,20}(?:"[^"\n]{0,200}"|'[^'\n]{0,200}'|\([^()\n]{0,200}\)))?[ \t\n]{0,20}\)|<img\b[^>]*(?:>|$)/gi
const IMG_TAG = /<img\b[^>]*(?:>|$)/gi
const SRC = /\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i
const FENCE = /^ {0,3}(`{3,}|~{3,})/

/** The attachment's id in its address: GitHub's (or a server's) user-attachments, or the older user-images file. */
function attachmentKey(url: string): string | undefined {
  const asset = /\/user-attachments\/assets\/([0-9A-Za-z-]{1,100})(?:[?#]|$)/.exec(url)
  if (asset) return (asset[1] as string).toLowerCase()
  const file = /^https:\/\/(?:private-)?user-images\.githubusercontent\.com\/\d+\/([^/?#]{1,300})/i.exec(url)
  return file ? (file[1] as string).toLowerCase() : undefined
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i

/** A signed address of GitHub's HTML: on private-user-images, or carrying its `jwt`. */
function isSigned(src: string): boolean {
  return /^https:\/\/private-user-images\.githubusercontent\.com\//i.test(src) || /[?&]jwt=/.test(src)
}

/** The keys a signed address answers to: its file's name, and the asset id inside it. */
function signedKeys(src: string): string[] {
  const path = src.slice(0, src.search(/[?#]|$/))
  const name = path.slice(path.lastIndexOf('/') + 1, path.lastIndexOf('/') + 301).toLowerCase()
  const id = UUID.exec(name)?.[0]
  return id ? [name, id] : [name]
}

/** The few entities GitHub writes in an attribute's URL. */
function unescapeAttribute(value: string): string {
  return value.replace(/&(amp|quot|#39|#x27|lt|gt);/g, (_, name: string) =>
    name === 'amp' ? '&' : name === 'quot' ? '"' : name === 'lt' ? '<' : name === 'gt' ? '>' : "'"
  )
}

function srcOf(tag: string): string | undefined {
  const found = SRC.exec(tag)
  const value = found?.[1] ?? found?.[2] ?? found?.[3]
  return value === undefined ? undefined : unescapeAttribute(value.trim())
}

/** The signed addresses of the HTML's images, in order, at most MAX_HTML_IMAGES read. */
function signedImages(html: string): string[] {
  const signed: string[] = []
  let seen = 0
  for (const tag of html.matchAll(IMG_TAG)) {
    if (++seen > MAX_HTML_IMAGES) break
    const src = srcOf(tag[0])
    if (src && isSigned(src)) signed.push(src)
  }
  return signed
}

/** The parts of the text outside fenced code blocks, where an image shows as one. */
function proseParts(text: string): Array<{ from: number; to: number }> {
  const parts: Array<{ from: number; to: number }> = []
  let fence: string | undefined
  let from = 0
  for (let at = 0; at < text.length;) {
    const end = text.indexOf('\n', at)
    const lineEnd = end < 0 ? text.length : end + 1
    const marker = FENCE.exec(text.slice(at, Math.min(lineEnd, at + 40)))?.[1]
    if (fence === undefined && marker) {
      if (at > from) parts.push({ from, to: at })
      fence = marker
    } else if (fence !== undefined && marker && marker[0] === fence[0] && marker.length >= fence.length) {
      fence = undefined
      from = lineEnd
    }
    at = lineEnd
  }
  if (fence === undefined && from < text.length) parts.push({ from, to: text.length })
  return parts
}

/**
 * The references of a text as a reader sees it, at most MAX_REFERENCES, in order; past them the
 * keys of those that could be downloaded, each once.
 */
function referencesIn(
  visible: string,
  hosts: ImageHosts
): { found: Array<{ start: number; end: number; url: string }>; beyond: string[] } {
  const found: Array<{ start: number; end: number; url: string }> = []
  const beyond = new Set<string>()
  for (const part of proseParts(visible)) {
    const prose = visible.slice(part.from, part.to)
    for (const match of prose.matchAll(REFERENCE)) {
      const url = match[0].startsWith('<') ? srcOf(match[0]) : (match[1] ?? match[2])
      if (url === undefined) continue
      const start = part.from + (match.index ?? 0)
      if (found.length < MAX_REFERENCES) found.push({ start, end: start + match[0].length, url })
      else if (isFetchable(url, hosts)) beyond.add(attachmentKey(url) ?? url)
    }
  }
  return { found, beyond: [...beyond] }
}

/**
 * The images of one text, each matched to its signed address in the HTML. An attachment is matched
 * by its id, which GitHub's signed file name carries (`<n>-<asset id>.png`); one whose id no signed
 * address names takes the next unmatched one in order, since the HTML is rendered from the same text
 * and lists its attachments in the same order (a change of GitHub's naming then still matches).
 */
export function findImages(text: ThreadText, hosts: ImageHosts): FoundImages {
  const visible = stripHidden(text.text)
  const signed = signedImages(text.html)
  const byKey = new Map<string, number>()
  signed.forEach((src, index) => {
    for (const key of signedKeys(src)) if (!byKey.has(key)) byKey.set(key, index)
  })
  const used = new Set<number>()
  const { found: referenced, beyond } = referencesIn(visible, hosts)
  const found = referenced.map(reference => {
    const key = attachmentKey(reference.url)
    const index = key === undefined ? undefined : byKey.get(key)
    if (index !== undefined) used.add(index)
    return { ...reference, key, index }
  })
  let next = 0
  const references = found.map(({ start, end, url, key, index }) => {
    let match = index
    if (key !== undefined && match === undefined) {
      while (next < signed.length && used.has(next)) next++
      if (next < signed.length) used.add((match = next))
    }
    const address = match === undefined ? url : (signed[match] as string)
    return { start, end, url: address, fetchable: isFetchable(address, hosts), key: key ?? url }
  })
  return { where: text.where, visible, references, beyond }
}

/** One image to download, in the order the run's images go. */
export interface ChosenImage {
  key: string
  url: string
  where: string
}

/**
 * The images to download, in order (the texts as given: the asking comment's first, then newest to
 * oldest; within a text as it reads), each once, at most `room` of them; the rest left out for the
 * cap, those past a text's MAX_REFERENCES too. A reference that may not be downloaded is neither:
 * it stays a link.
 */
export function chooseImages(
  texts: FoundImages[],
  room: number
): { chosen: ChosenImage[]; leftOut: Array<{ where: string; why: ImageLeftOut }> } {
  const chosen: ChosenImage[] = []
  const leftOut: Array<{ where: string; why: ImageLeftOut }> = []
  const seen = new Set<string>()
  for (const text of texts) {
    for (const reference of text.references) {
      if (!reference.fetchable || seen.has(reference.key)) continue
      seen.add(reference.key)
      if (chosen.length < room) chosen.push({ key: reference.key, url: reference.url, where: text.where })
      else leftOut.push({ where: text.where, why: 'cap' })
    }
    for (const key of text.beyond) {
      if (seen.has(key)) continue
      seen.add(key)
      leftOut.push({ where: text.where, why: 'cap' })
    }
  }
  return { chosen, leftOut }
}

/** What stands in the prompt where an image sent with the run was: its number among the run's images. */
export function imagePlaceholder(number: number, where: string): string {
  return `[Image ${number}: in ${where}]`
}

/**
 * The text as a reader sees it, each reference to an image sent replaced by its placeholder
 * (`numbers`: the run's image number of each key sent); the others stay as written. Linear.
 */
export function withPlaceholders(found: FoundImages, numbers: ReadonlyMap<string, number>): string {
  let out = ''
  let from = 0
  for (const reference of found.references) {
    const number = numbers.get(reference.key)
    if (number === undefined) continue
    out += found.visible.slice(from, reference.start) + imagePlaceholder(number, found.where)
    from = reference.end
  }
  return out + found.visible.slice(from)
}

/** A text's place for the prompt and the reports: "@alice's comment of 2026-12-01". */
export function textPlace(
  kind: 'comment' | 'review' | 'code comment' | 'body',
  login: string,
  createdAt: string | undefined,
  threadKind: 'issue' | 'pull request'
): string {
  if (kind === 'body') return `the ${threadKind}'s description`
  const who = login.replace(/[^A-Za-z0-9_.[\]-]/g, '').slice(0, 60)
  const day = /^\d{4}-\d{2}-\d{2}/.exec(createdAt ?? '')?.[0]
  const what = kind === 'code comment' ? 'comment on the code' : kind
  if (!who) return `the ${what}${day ? ` of ${day}` : ''}`
  return `@${who}'s ${what}${day ? ` of ${day}` : ''}`
}
