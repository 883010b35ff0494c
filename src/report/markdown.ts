/** Escaping for the job summary (GitHub-flavoured Markdown with HTML). */

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/**
 * Service text as a block quote: its Markdown still renders, but every construct it opens (a code
 * fence, a list) closes with the quote, and raw HTML (`</details>`, comments, scripts) shows as text.
 */
export function quoteBlock(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map(line => `> ${line.replace(/&/g, '&amp;').replace(/</g, '&lt;')}`.trimEnd())
    .join('\n')
}

/** Text for one cell of a Markdown table. */
export function tableCell(text: string): string {
  return escapeHtml(text.replace(/\s+/g, ' ').trim()).replace(/\|/g, '\\|')
}

/** Longer addresses are not real ones: the label shows alone. */
const URL_CHARS = 2_000

/** A link whose text and address cannot break out of the Markdown. */
export function link(text: string, url: unknown): string {
  const label = tableCell(text).replace(/[[\]]/g, '\\$&')
  if (typeof url !== 'string' || url.length > URL_CHARS || !/^https?:\/\//i.test(url)) return label
  return `[${label}](${url.replace(/[()\s<>]/g, encodeURIComponent)})`
}
