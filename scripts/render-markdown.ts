import { decodeNamedCharacterReference } from 'decode-named-character-reference'
import { micromark } from 'micromark'
import { gfm, gfmHtml } from 'micromark-extension-gfm'

/**
 * Markdown the way GitHub shows it: CommonMark + GFM, raw HTML passed through (GitHub keeps the
 * HTML its sanitizer allows, such as <details>, <summary>, <pre>, <code>, <sub>, <b>, <br>).
 */
export function renderMarkdown(markdown: string): string {
  const known = rendered.get(markdown)
  if (known !== undefined) return known
  const html = micromark(markdown, { allowDangerousHtml: true, extensions: GFM, htmlExtensions: GFM_HTML })
  if (rendered.size >= KEPT_RENDERS) rendered.delete(rendered.keys().next().value as string)
  rendered.set(markdown, html)
  return html
}

/**
 * The last pages rendered: a test often reads the same page twice (its HTML, then its text), and
 * micromark reads some 200 KB a second of text full of code spans.
 */
const rendered = new Map<string, string>()
const KEPT_RENDERS = 8

// Built once: the extensions hold no state of a document, and building them on every call cost as
// much CPU as the rendering itself.
const GFM = [gfm()]
const GFM_HTML = [gfmHtml()]

function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]+|#[0-9]+|[A-Za-z][A-Za-z0-9]*);/g, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10)
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd'
    }
    const decoded = decodeNamedCharacterReference(ref)
    return decoded === false ? whole : decoded
  })
}

/** Block elements: a browser shows their text on lines of their own. */
const BLOCKS = /^(p|div|pre|details|summary|h[1-6]|li|ul|ol|blockquote|table|tr|br|hr)$/i

/**
 * The text a browser shows for `html`: tags dropped (a block element on its own line, a table cell
 * separated by " | "), comments and the contents of script and style elements hidden, character
 * references decoded. Whitespace is kept inside <pre>, folded elsewhere.
 */
export function visibleText(html: string): string {
  const out: string[] = []
  let pre = 0
  const tokens = html.split(/(<!--[\s\S]*?-->|<\/?[A-Za-z][^>]*>)/)
  let hidden = 0
  for (const token of tokens) {
    if (token.startsWith('<!--')) continue
    const tag = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)/.exec(token)
    if (tag) {
      const [, closing, name = ''] = tag
      if (/^(script|style)$/i.test(name)) hidden += closing ? -1 : 1
      if (/^pre$/i.test(name)) pre += closing ? -1 : 1
      if (BLOCKS.test(name)) out.push('\n')
      else if (/^(td|th)$/i.test(name) && closing) out.push(' | ')
      continue
    }
    if (hidden > 0) continue
    const text = decodeEntities(token)
    out.push(pre > 0 ? text : text.replace(/\s+/g, ' '))
  }
  return out
    .join('')
    .split('\n')
    .map(line => line.replace(/[ \t]+$/, ''))
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim()
}

/** Markdown to the text a reader sees. */
export function readerText(markdown: string): string {
  return visibleText(renderMarkdown(markdown))
}

/** Elements whose text GitHub links no mention in. */
const UNMENTIONED = /^(pre|code|a)$/i

/**
 * The mentions GitHub would make live in rendered HTML (`@name`, `@org/team`): its rule,
 * html-pipeline's MentionFilter, `(?:^|\W)@name` in each text outside code, pre and links, with
 * character references decoded. A name is `[a-z0-9][a-z0-9-]*`, any case.
 */
export function liveMentions(html: string): string[] {
  const found: string[] = []
  let unmentioned = 0
  for (const token of html.split(/(<!--[\s\S]*?-->|<\/?[A-Za-z][^>]*>)/)) {
    if (token.startsWith('<!--')) continue
    const tag = /^<(\/?)([A-Za-z][A-Za-z0-9-]*)/.exec(token)
    if (tag) {
      if (UNMENTIONED.test(tag[2] ?? '')) unmentioned += tag[1] ? -1 : 1
      continue
    }
    if (unmentioned > 0) continue
    for (const match of decodeEntities(token).matchAll(/(?:^|[^A-Za-z0-9_])(@[a-z0-9][a-z0-9-]*)/gi))
      found.push(match[1] as string)
  }
  return found
}
