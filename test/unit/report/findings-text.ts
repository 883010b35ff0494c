import type { Finding } from '../../../src/answer/findings.js'
import {
  annotationBatches,
  annotationOf,
  checkFindingsMarkdown,
  findingConsoleLine,
  findingsSummarySection,
  findingText,
  findingUrl,
  inlineCommentBody,
  MAX_ANNOTATIONS,
  reviewBody,
  REVIEW_BODY_CHARS,
  trackingFindingsLine
} from '../../../src/report/findings-text.js'
import { HOSTILE_TEXT } from '../../../scripts/render-fixtures.js'
import { liveMentions, readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import { runnerCommands } from '../../support/runner-commands.js'

/** The findings where they show, rendered as GitHub and the runner read them. */

const PLACE = { serverUrl: 'https://github.com', repository: 'octo-org/octo-repo', sha: 'a'.repeat(40) }
const bytes = (text: string): number => Buffer.byteLength(text)

const finding = (fields: Partial<Finding> = {}): Finding => ({
  path: 'src/parser.ts',
  line: 46,
  endLine: 47,
  severity: 'warning',
  title: 'The new guard throws',
  message: 'A line ending in a comma now throws.',
  ...fields
})

/** What a reader sees, a line each, blank lines and the spaces round table cells left out. */
const shown = (markdown: string): string[] =>
  readerText(markdown)
    .split('\n')
    .map(line => line.replace(/ +/g, ' ').trim())
    .filter(Boolean)

describe('annotations', () => {
  test('a finding as GitHub takes an annotation: its lines, its severity as the level, its texts', () => {
    expect(annotationOf(finding())).toEqual({
      path: 'src/parser.ts',
      start_line: 46,
      end_line: 47,
      annotation_level: 'warning',
      title: 'The new guard throws',
      message: 'A line ending in a comma now throws.'
    })
    expect(annotationOf(finding({ title: undefined, endLine: 46 }))).toEqual({
      path: 'src/parser.ts',
      start_line: 46,
      end_line: 46,
      annotation_level: 'warning',
      message: 'A line ending in a comma now throws.'
    })
  })

  test('plain text: lines kept, control characters gone, no live mention or reference, within the bytes GitHub counts', () => {
    const hostile = annotationOf(
      finding({
        title: `@octocat\u0007 ${'漢'.repeat(300)}`,
        message: `${HOSTILE_TEXT}\r\u0000${'漢'.repeat(400_000)}`
      })
    )
    expect(bytes(hostile.title!)).toBeLessThanOrEqual(255)
    expect(hostile.title).toMatch(/^@\u2060octocat {2}漢/)
    expect(bytes(hostile.message)).toBeLessThanOrEqual(65_535)
    expect(bytes(hostile.message)).toBeGreaterThan(65_000)
    expect(hostile.message).toContain('Ping @\u2060octocat and @\u2060github/security, mail a@b.co')
    expect(hostile.message).toContain('\n| broken | table\n')
    // eslint-disable-next-line no-control-regex -- what must not be there
    expect(hostile.message).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/)
    const reference = annotationOf(finding({ message: 'as in torvalds/linux#1' }))
    expect(reference.message).toBe('as in torvalds/linux#\u20601')
  })

  test('in requests of 50, the most severe first, 200 at most', () => {
    const many = (n: number): Finding[] =>
      Array.from({ length: n }, (_, i) =>
        finding({ line: i + 1, endLine: i + 1, severity: i % 3 === 0 ? 'failure' : 'notice' })
      )
    expect(annotationBatches(many(1)).map(batch => batch.length)).toEqual([1])
    expect(annotationBatches(many(120)).map(batch => batch.length)).toEqual([50, 50, 20])
    const capped = annotationBatches(many(250))
    expect(capped.map(batch => batch.length)).toEqual([50, 50, 50, 50])
    const levels = capped.flat().map(annotation => annotation.annotation_level)
    expect(levels.slice(0, 84).every(level => level === 'failure')).toBe(true)
    expect(new Set(capped.flat().map(annotation => annotation.start_line)).size).toBe(MAX_ANNOTATIONS)
  })

  test("the check's summary counts them by severity, and says how many were left out past 200", () => {
    expect(readerText(checkFindingsMarkdown([finding(), finding({ severity: 'failure' })]))).toBe(
      '2 findings: 1 failure, 1 warning, annotated on the lines they are about.'
    )
    const many = Array.from({ length: 234 }, () => finding())
    expect(shown(checkFindingsMarkdown(many))).toEqual([
      '234 findings: 234 warnings, annotated on the lines they are about.',
      '34 findings were left out of the annotations (200 at most, the most severe first): the findings output has them all.'
    ])
    expect(readerText(checkFindingsMarkdown([]))).toBe(
      'No findings: the agent found nothing to show on the code.'
    )
  })
})

describe("the job summary's table", () => {
  test('the count, then a row a finding: the severity as a word, path:line linked to the lines at the commit, title, message', () => {
    const section = findingsSummarySection(
      [
        finding({ severity: 'failure', line: 2, endLine: 2, path: 'src/index.ts', title: 'Renamed export' }),
        finding()
      ],
      PLACE
    )
    expect(shown(section)).toEqual([
      'Findings',
      '2 findings: 1 failure, 1 warning.',
      'Severity | Where | Title | Message |',
      'failure | src/index.ts:2 | Renamed export | A line ending in a comma now throws. |',
      'warning | src/parser.ts:46-47 | The new guard throws | A line ending in a comma now throws. |'
    ])
    const html = renderMarkdown(section)
    expect(html).toContain(
      `<a href="https://github.com/octo-org/octo-repo/blob/${'a'.repeat(40)}/src/index.ts#L2">`
    )
    expect(html).toContain('/blob/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/src/parser.ts#L46-L47">')
  })

  test('hostile texts stay text in their cells: no HTML, no live mention, no cell broken out of', () => {
    const hostile = finding({ title: HOSTILE_TEXT, message: HOSTILE_TEXT, path: 'a b/(x)<y>.ts' })
    const html = renderMarkdown(findingsSummarySection([hostile], PLACE))
    expect(html).not.toMatch(/<script|<img|<\/?details/i)
    expect(liveMentions(html)).toEqual([])
    expect((html.match(/<td>/g) ?? []).length).toBe(4)
    expect(html).toContain(
      'href="https://github.com/octo-org/octo-repo/blob/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/a%20b/%28x%29%3Cy%3E.ts#L46-L47"'
    )
    expect(findingUrl(PLACE, hostile)).toMatch(/a%20b\/%28x%29%3Cy%3E\.ts#L46-L47$/)
    // A lone surrogate, half a character, is none in an address: U+FFFD, as UTF-8 writes it.
    expect(findingUrl(PLACE, finding({ path: 'src/x\ud800y.ts' }))).toMatch(/\/src\/x%EF%BF%BDy\.ts#L46-L47$/)
  })

  test.each([
    'src/a)b.ts',
    'docs/(draft/x.md',
    'a b/c#d?e=f&g%41.md',
    "src/[x]/!'*~.ts",
    'src/a\\b.ts',
    'lib/漢字 😀.ts',
    'src/a](https:/evil.example).ts'
  ])('the link of %s leads to the whole path at its lines, the path shown as written', path => {
    const section = findingsSummarySection([finding({ path })], PLACE)
    const html = renderMarkdown(section)
    const hrefs = [...html.matchAll(/<a href="([^"]*)"/g)].map(match => match[1] as string)
    expect(hrefs).toHaveLength(1)
    const blob = `https://github.com/octo-org/octo-repo/blob/${'a'.repeat(40)}/`
    const href = hrefs[0]!.replace(/&amp;/g, '&')
    expect(href.startsWith(blob) && href.endsWith('#L46-L47')).toBe(true)
    const linked = href.slice(blob.length, -'#L46-L47'.length)
    expect(linked).not.toMatch(/[#?()\s]/)
    expect(decodeURIComponent(linked)).toBe(path)
    expect(shown(section)[3]).toBe(
      `warning | ${path}:46-47 | The new guard throws | A line ending in a comma now throws. |`
    )
  })

  test('without the commit, the place shows unlinked; past 200 rows, how many more', () => {
    const section = findingsSummarySection(
      Array.from({ length: 205 }, () => finding()),
      undefined
    )
    expect(renderMarkdown(section)).not.toContain('<a ')
    expect(readerText(section)).toContain('And 5 findings more: the findings output has them all.')
    expect(shown(findingsSummarySection([], PLACE))).toEqual(['Findings', 'No findings.'])
  })
})

describe('direction controls, zero-width characters and mentions, wherever a finding shows', () => {
  const HIDDEN = '\u202e\u2066\u200b\u200c\u200e\u200f\u061c\ufeff\u2060\u2064\u180e'
  const FAMILY = '👨\u200d👩\u200d👧'
  const hostile = finding({
    path: `src/\u202eevil\u2069.ts`,
    title: `Fix\u200b -@\u200boctocat .@octocat`,
    message: `Swap ${HIDDEN}a${HIDDEN}b\u200dc for ${FAMILY}; ask +@octocat, -@\ufeffocto-org/team, x.@octocat`
  })
  /** The text without our word joiner after `@` (unmention's) and the family's joiners. */
  const leftOver = (text: string): string => text.replaceAll('@\u2060', '@').replaceAll(FAMILY, '')
  const INVISIBLE = /[\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u
  const MENTION = /(?:^|[^A-Za-z0-9_])@[a-z0-9]/i

  test('findingText: direction controls and zero-width characters removed, controls as spaces, emoji joined', () => {
    expect(findingText(`a${HIDDEN}b\u0007c\u200dd ${FAMILY} 🏳️\u200d🌈 👍🏽\u200d`)).toBe(
      `ab cd ${FAMILY} 🏳️\u200d🌈 👍🏽`
    )
    expect(findingText('line\n\ttab')).toBe('line\n\ttab')
  })

  test('the annotation: its texts without them, no mention; its path as the file is named', () => {
    const annotation = annotationOf(hostile)
    expect(annotation.path).toBe(hostile.path)
    for (const text of [annotation.title!, annotation.message]) {
      expect(leftOver(text)).not.toMatch(INVISIBLE)
      expect(text).not.toMatch(MENTION)
    }
    expect(leftOver(annotation.message)).toBe('Swap abc for ; ask +@octocat, -@octo-org/team, x.@octocat')
    expect(annotation.message).toContain(FAMILY)
  })

  test("the job summary's table: what a reader sees has none of them, and the link leads to the file as named", () => {
    const section = findingsSummarySection([hostile], PLACE)
    const html = renderMarkdown(section)
    expect(liveMentions(html)).toEqual([])
    const row = shown(section)[3]!
    expect(leftOver(row)).not.toMatch(INVISIBLE)
    expect(leftOver(row)).toBe(
      'warning | src/evil.ts:46-47 | Fix -@octocat .@octocat | Swap abc for ; ask +@octocat, -@octo-org/team, x.@octocat |'
    )
    expect(row).toContain(FAMILY)
    expect(html).toContain('/src/%E2%80%AEevil%E2%81%A9.ts#L46-L47"')
  })

  test('the review: the inline comment and the body show none of them, and mention nobody', () => {
    const comment = inlineCommentBody(hostile)
    const body = reviewBody({
      marker: 'm',
      run: 'run',
      findings: [hostile],
      inline: 0,
      listed: [hostile],
      footer: 'f'
    })
    for (const markdown of [comment, body]) {
      expect(liveMentions(renderMarkdown(markdown))).toEqual([])
      expect(leftOver(readerText(markdown))).not.toMatch(INVISIBLE)
      expect(readerText(markdown)).toContain(FAMILY)
    }
    expect(shown(comment).map(leftOver)).toEqual([
      '⚠️ warning · Fix -@octocat .@octocat',
      'Swap abc for ; ask +@octocat, -@octo-org/team, x.@octocat'
    ])
    expect(shown(body).map(leftOver)).toContain(
      '⚠️ warning · Fix -@octocat .@octocat src/evil.ts:46-47: Swap abc for ; ask +@octocat, -@octo-org/team, x.@octocat'
    )
  })

  test('the console: none of them in its line, and no workflow command once they are gone', () => {
    const line = findingConsoleLine(hostile)
    expect(line.replaceAll(FAMILY, '').replaceAll('##\u2060[', '##[')).not.toMatch(INVISIBLE)
    expect(line.replaceAll(FAMILY, '')).toBe(
      'warning  src/evil.ts:46-47  Fix -@octocat .@octocat: Swap abc for ; ask +@octocat, -@octo-org/team, x.@octocat'
    )
    const hidden = findingConsoleLine(finding({ message: '##\u200b[error]forged \u200b::error::x' }))
    expect(runnerCommands(hidden)).toEqual([])
    expect(runnerCommands(`  ${hidden}`)).toEqual([])
  })
})

describe('the console and the tracking comment', () => {
  test('one line of text a finding, never a workflow command', () => {
    expect(findingConsoleLine(finding())).toBe(
      'warning  src/parser.ts:46-47  The new guard throws: A line ending in a comma now throws.'
    )
    const line = findingConsoleLine(
      finding({ path: '::error::x', title: '::warning::y', message: HOSTILE_TEXT })
    )
    expect(line).not.toMatch(/[\r\n]/)
    expect(runnerCommands(`  ${line}`)).toEqual([])
    expect(runnerCommands(line)).toEqual([])
  })

  test('the count, its split by severity and a link to the check', () => {
    const line = trackingFindingsLine(
      [finding(), finding({ severity: 'failure' }), finding()],
      'https://github.com/o/r/runs/5'
    )
    expect(readerText(line)).toBe('3 findings: 1 failure, 2 warnings · on the check run')
    expect(renderMarkdown(line)).toContain('<a href="https://github.com/o/r/runs/5">on the check run</a>')
    expect(readerText(trackingFindingsLine([], undefined))).toBe('No findings')
  })
})

describe('the review', () => {
  test("an inline comment: the severity, the title, then the agent's Markdown, made safe", () => {
    const body = inlineCommentBody(finding({ message: `Use \`parseField\`.\n\n${HOSTILE_TEXT}` }))
    const html = renderMarkdown(body)
    expect(readerText(body).split('\n')[0]).toBe('⚠️ warning · The new guard throws')
    expect(html).toContain('<code>parseField</code>')
    expect(html).not.toMatch(/<script|<img|<\/?details/i)
    expect(liveMentions(html)).toEqual([])
  })

  test("the body: our marker, the count, the findings off the diff's lines with path, line and message", () => {
    const body = reviewBody({
      marker: '<!-- marker -->',
      run: 'Codegen agent run [#5](https://codegen.com/5)',
      findings: [finding(), finding({ severity: 'notice', path: 'docs/api.md', line: 14, endLine: 14 })],
      inline: 1,
      listed: [finding({ severity: 'notice', path: 'docs/api.md', line: 14, endLine: 14, title: undefined })],
      footer: '<sub>footer</sub>'
    })
    expect(body.split('\n')[0]).toBe('<!-- marker -->')
    expect(shown(body)).toEqual([
      '🤖 Codegen agent run #5: 2 findings: 1 warning, 1 notice',
      '1 finding is commented on the lines of the diff.',
      'The others:',
      'ℹ️ notice docs/api.md:14: A line ending in a comma now throws.',
      'footer'
    ])
  })

  test('within 60,000 characters however many findings, saying how many more', () => {
    const listed = Array.from({ length: 3_000 }, () =>
      finding({ message: '<&>'.repeat(200), path: 'x'.repeat(300) })
    )
    const body = reviewBody({ marker: 'm', run: 'run', findings: listed, inline: 0, listed, footer: 'f' })
    expect(body.length).toBeLessThanOrEqual(REVIEW_BODY_CHARS)
    expect(shown(body).slice(-2)).toEqual([
      expect.stringMatching(/^And \d+ findings more: the check run and the findings output have them all\.$/),
      'f'
    ])
  })
})
