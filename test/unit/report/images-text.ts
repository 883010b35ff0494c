import { liveMentions, readerText, renderMarkdown } from '../../../scripts/render-markdown.js'
import { threadImagesLine, threadImagesMarkdown } from '../../../src/report/images-text.js'

/** What the reports say of the thread's images (src/report/images-text.ts). */

describe('threadImagesLine', () => {
  const ALICE = "@alice's comment of 2026-12-01"

  test('how many were sent and from where, how many left out and why', () => {
    const line = threadImagesLine({
      sent: [{ where: ALICE }, { where: ALICE }, { where: "the issue's description" }],
      leftOut: [
        { where: ALICE, why: 'too-big' },
        { where: ALICE, why: 'cap' },
        { where: ALICE, why: 'cap' },
        { where: ALICE, why: 'not-an-image' },
        { where: ALICE, why: 'failed' }
      ]
    })
    expect(line).toBe(
      `Images from the thread: 3 images sent (2 from ${ALICE}, 1 from the issue's description); 5 left out (1 too big, 2 over the cap of 10 images and 10 MiB, 1 not an image, 1 download failed).`
    )
  })

  test('none sent, one left out', () => {
    expect(threadImagesLine({ sent: [], leftOut: [{ where: ALICE, why: 'failed' }] })).toBe(
      'Images from the thread: none sent; 1 left out (1 download failed).'
    )
  })

  test('in Markdown it reads the same and mentions no one', () => {
    const report = { sent: [{ where: "@alice's comment of 2026-12-01" }], leftOut: [] }
    const markdown = threadImagesMarkdown(report)
    expect(readerText(markdown).replace(/\u2060/g, '')).toBe(threadImagesLine(report))
    expect(liveMentions(renderMarkdown(markdown))).toEqual([])
  })
})
