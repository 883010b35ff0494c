import type { FakeAnnotation, FakeReview, FakeReviewComment } from './github-fake/index.js'
import { renderMarkdown } from './render-markdown.js'

/**
 * The HTML pages `npm run screenshots` photographs: the action's Markdown rendered as GitHub renders
 * it (CommonMark + GFM, scripts/render-markdown.ts) inside `<article class="markdown-body">` with
 * GitHub's own stylesheet (github-markdown-css), framed as GitHub frames a job summary, a comment
 * and a check run (with its annotations), and a pull request's review, in a column of GitHub's
 * width. Pure: the stylesheet comes in as text.
 */

/** The width of GitHub's Markdown column in a comment or a job summary, in CSS pixels. */
export const COLUMN_PX = 880
/** The page around the column. */
export const PAGE_MARGIN_PX = 16

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c
  )

/** The frames around the Markdown, close to GitHub's (Primer's colours, borders and radii). */
const FRAME_CSS = `
html, body { margin: 0; background: #ffffff; }
body { padding: ${PAGE_MARGIN_PX}px; width: ${COLUMN_PX}px; font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Noto Color Emoji"; color: #1f2328; }
.box { border: 1px solid #d1d9e0; border-radius: 6px; overflow: hidden; }
.box + .box, .comment + .comment { margin-top: 16px; }
.box-header { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; color: #59636e; }
.box-header b { color: #1f2328; font-weight: 600; }
.markdown-body { padding: 16px 24px; font-family: inherit; font-size: 14px; }
.comment { display: flex; gap: 16px; align-items: flex-start; }
.avatar { flex: none; width: 40px; height: 40px; border-radius: 50%; background: #ddf4ff; color: #0969da; font-weight: 600; display: flex; align-items: center; justify-content: center; }
.avatar.bot { border-radius: 6px; background: #2da44e; color: #ffffff; }
.comment .box { flex: 1; min-width: 0; }
.label { border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 7px; font-size: 12px; font-weight: 500; color: #59636e; margin-left: 4px; }
.check-head { display: flex; gap: 12px; align-items: center; padding: 16px 24px; border-bottom: 1px solid #d1d9e0; }
.check-head h2 { margin: 0; font-size: 20px; font-weight: 600; }
.check-head .when { color: #59636e; }
.check-title { margin: 0; padding: 16px 24px 0; font-size: 16px; font-weight: 600; }
`

/** Chromium with --dump-dom prints the page after load: the height the screenshot needs is in the title. */
const MEASURE_SCRIPT = `<script>addEventListener('load', () => { document.title = 'height=' + Math.ceil(document.documentElement.getBoundingClientRect().height) })</script>`

/** A whole page: GitHub's stylesheet, the frames, and `body`. */
export function page(stylesheet: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>${stylesheet}</style>
<style>${FRAME_CSS}</style>
${MEASURE_SCRIPT}
</head><body>
${body}
</body></html>
`
}

/** The height a page measured itself at (see MEASURE_SCRIPT), from Chromium's --dump-dom. */
export function measuredHeight(dumpedDom: string): number | undefined {
  const found = /<title>height=(\d+)<\/title>/.exec(dumpedDom)
  return found ? Number(found[1]) : undefined
}

const markdownBody = (markdown: string): string =>
  `<article class="markdown-body">\n${renderMarkdown(markdown)}\n</article>`

/** A job's summary as the workflow run's page shows it: a box headed "<job> summary". */
export function summaryBody(job: string, markdown: string): string {
  return `<div class="box"><div class="box-header"><b>${escapeHtml(job)}</b> summary</div>\n${markdownBody(markdown)}\n</div>`
}

export interface ThreadComment {
  login: string
  bot: boolean
  markdown: string
}

/** Comments of an issue or pull request's conversation, each with its author, one under another. */
export function threadBody(comments: ThreadComment[]): string {
  return comments
    .map(comment => {
      const login = escapeHtml(comment.login.replace(/\[bot\]$/, ''))
      const avatar = `<div class="avatar${comment.bot ? ' bot' : ''}">${escapeHtml(login.slice(0, 1).toUpperCase())}</div>`
      const label = comment.bot ? ' <span class="label">bot</span>' : ''
      const header = `<div class="box-header"><b>${login}</b>${label} commented</div>`
      return `<div class="comment">${avatar}<div class="box">${header}\n${markdownBody(comment.markdown)}\n</div></div>`
    })
    .join('\n')
}

export interface CheckRunView {
  name: string
  status: string
  conclusion?: string
  title: string
  summary: string
}

/** How GitHub words a check's conclusion beside its name, and the colour of its mark. */
const CONCLUSION_LOOK: Record<string, { words: string; colour: string; mark: 'check' | 'cross' | 'dot' }> = {
  success: { words: 'succeeded', colour: '#1a7f37', mark: 'check' },
  failure: { words: 'failed', colour: '#d1242f', mark: 'cross' },
  timed_out: { words: 'timed out', colour: '#d1242f', mark: 'cross' },
  cancelled: { words: 'was cancelled', colour: '#59636e', mark: 'dot' },
  action_required: { words: 'needs action', colour: '#9a6700', mark: 'dot' },
  neutral: { words: 'ended neutral', colour: '#59636e', mark: 'dot' }
}

/** A round mark drawn here (a tick, a cross or a dot on the conclusion's colour). */
function mark(kind: 'check' | 'cross' | 'dot', colour: string): string {
  const inner = {
    check:
      '<path d="M7 12.5l3.2 3.2L17 9" fill="none" stroke="#fff" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>',
    cross: '<path d="M8.5 8.5l7 7M15.5 8.5l-7 7" stroke="#fff" stroke-width="2.4" stroke-linecap="round"/>',
    dot: '<circle cx="12" cy="12" r="3.5" fill="#fff"/>'
  }[kind]
  return `<svg width="24" height="24" viewBox="0 0 24 24" aria-hidden="true"><circle cx="12" cy="12" r="12" fill="${colour}"/>${inner}</svg>`
}

/**
 * A check run as its page on GitHub shows it: the mark and the name with the conclusion, then the
 * output's title (plain text) and its summary (Markdown).
 */
export function checkRunBody(check: CheckRunView): string {
  const look =
    check.status === 'completed'
      ? (CONCLUSION_LOOK[check.conclusion ?? ''] ?? {
          words: check.conclusion ?? '',
          colour: '#59636e',
          mark: 'dot'
        })
      : { words: 'in progress', colour: '#9a6700', mark: 'dot' as const }
  return [
    '<div class="box">',
    `<div class="check-head">${mark(look.mark, look.colour)}<h2>${escapeHtml(check.name)}</h2><span class="when">${escapeHtml(look.words)}</span></div>`,
    `<h3 class="check-title">${escapeHtml(check.title)}</h3>`,
    markdownBody(check.summary),
    '</div>'
  ].join('\n')
}

/** Annotations and review threads, drawn close to GitHub's (Primer's colours); the rest is screenshot-pages'. */
const FINDINGS_CSS = `<style>
.annotation { display: flex; gap: 10px; padding: 12px 16px; border-top: 1px solid #d1d9e0; }
.annotation:first-of-type { border-top: none; }
.annotation .icon { flex: none; width: 16px; height: 16px; margin-top: 3px; border-radius: 50%; }
.annotation .where { color: #59636e; font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.annotation pre { margin: 6px 0 0; white-space: pre-wrap; font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: #1f2328; }
.hunk { margin: 0; font: 12px/20px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; border-bottom: 1px solid #d1d9e0; }
.hunk div { padding: 0 10px; white-space: pre; }
.hunk .num { display: inline-block; width: 36px; color: #59636e; text-align: right; margin-right: 12px; }
.hunk .add { background: #dafbe1; } .hunk .del { background: #ffebe9; } .hunk .head { background: #ddf4ff; color: #59636e; }
.threads { padding: 0 16px 16px; }
.path { font: 12px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: #1f2328; }
.reply { display: flex; gap: 12px; padding: 12px 16px; }
.reply .avatar { width: 28px; height: 28px; font-size: 12px; }
.reply .markdown-body { padding: 0; flex: 1; min-width: 0; }
</style>`

/** GitHub's annotation levels: the icon's colour and the word its list uses. */
const LEVELS: Record<FakeAnnotation['annotation_level'], { colour: string; word: string }> = {
  failure: { colour: '#d1242f', word: 'Failure' },
  warning: { colour: '#9a6700', word: 'Warning' },
  notice: { colour: '#0969da', word: 'Notice' }
}

/** The annotations of a check run, as its page on GitHub lists them under "Annotations". */
export function annotationsBody(
  check: { name: string; conclusion: string | null },
  annotations: FakeAnnotation[]
): string {
  const count = (level: FakeAnnotation['annotation_level']): string => {
    const n = annotations.filter(one => one.annotation_level === level).length
    return n ? `${n} ${level}${n === 1 ? '' : 's'}` : ''
  }
  const counts = (['failure', 'warning', 'notice'] as const).map(count).filter(Boolean).join(', ')
  const rows = annotations.map(one => {
    const lines =
      one.end_line > one.start_line ? `#L${one.start_line}-L${one.end_line}` : `#L${one.start_line}`
    const level = LEVELS[one.annotation_level]
    return [
      '<div class="annotation">',
      `<span class="icon" style="background: ${level.colour}"></span>`,
      '<div>',
      `<b>${escapeHtml(one.title ?? level.word)}</b> <span class="where">${escapeHtml(one.path)}${lines}</span>`,
      `<pre>${escapeHtml(one.message)}</pre>`,
      '</div></div>'
    ].join('')
  })
  return [
    FINDINGS_CSS,
    '<div class="box">',
    `<div class="box-header"><b>Annotations</b> · ${escapeHtml(counts)} · check <b>${escapeHtml(check.name)}</b> ${escapeHtml(check.conclusion ?? '')}</div>`,
    ...rows,
    '</div>'
  ].join('\n')
}

/** The lines of `hunk` GitHub shows above a comment on new lines `first` to `last` (at most the last 4). */
function hunkLines(hunk: string, first: number, last: number): string {
  const [header, ...lines] = hunk.split('\n')
  let right = Number(/\+(\d+)/.exec(header ?? '')?.[1] ?? 1)
  const shown: string[] = []
  for (const line of lines) {
    if (right > last) break
    const added = line.startsWith('+')
    const removed = line.startsWith('-')
    const number = removed ? '' : String(right)
    if (!removed) right++
    const kind = added ? 'add' : removed ? 'del' : ''
    shown.push(`<div class="${kind}"><span class="num">${number}</span>${escapeHtml(line)}</div>`)
  }
  const from = Math.max(0, shown.length - Math.max(4, last - first + 1))
  return `<div class="hunk"><div class="head">${escapeHtml(header ?? '')}</div>${shown.slice(from).join('')}</div>`
}

/** A review on a pull request's conversation: its body under its author, then each comment on the lines of the diff. */
export function reviewPageBody(review: FakeReview, comments: FakeReviewComment[]): string {
  const login = escapeHtml(review.user.login.replace(/\[bot\]$/, ''))
  const avatar = (size = '') =>
    `<div class="avatar bot${size}">${escapeHtml(login.slice(0, 1).toUpperCase())}</div>`
  const threads = comments.map(comment => {
    const last = comment.line ?? 1
    const first = comment.start_line ?? last
    const lines = first < last ? `lines ${first} to ${last}` : `line ${last}`
    return [
      '<div class="box">',
      `<div class="box-header"><span class="path">${escapeHtml(comment.path)}</span> · ${lines}</div>`,
      hunkLines(comment.diff_hunk, first, last),
      `<div class="reply">${avatar()}<article class="markdown-body">${renderMarkdown(comment.body)}</article></div>`,
      '</div>'
    ].join('\n')
  })
  return [
    FINDINGS_CSS,
    `<div class="comment">${avatar()}<div class="box"><div class="box-header"><b>${login}</b> <span class="label">bot</span> reviewed</div>`,
    `<article class="markdown-body">${renderMarkdown(review.body)}</article>`,
    // The comments on the lines, inside the review as GitHub nests them.
    `<div class="threads">${threads.join('\n')}</div>`,
    '</div></div>'
  ].join('\n')
}
