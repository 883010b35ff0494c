import { readerText } from '../../../scripts/render-markdown.js'
import {
  comment,
  creates,
  emulator,
  fast,
  onEvent,
  resumes,
  trackingComments
} from '../../support/comment-world.js'

/** A `/codegen` comment on a step with `verdict: true`, end to end: the ask, the repair, the comment's lead. */

test('a /codegen comment with verdict: true: the prompt asks for it, a repair is asked, the comment leads with the verdict', async () => {
  emulator.queueScript(fast('verdict-repaired'))
  const result = await onEvent(comment({ body: '/codegen review this for API breaks' }), { verdict: 'true' })
  expect(result.exitCode).toBe(1)
  expect(result.outputs).toMatchObject({ outcome: 'rejected', verdict: 'fail', trigger: 'comment' })
  // The thread's prompt, then the answer-format section.
  const prompt = (creates()[0]!.body as { prompt: string }).prompt
  expect(prompt.indexOf('review this for API breaks')).toBeLessThan(prompt.indexOf('**Answer format.**'))
  expect(prompt).toContain('Quoted text from the issue')
  expect(resumes()).toHaveLength(1)

  const [tracking] = trackingComments()
  const shown = readerText(tracking!.body)
  const lines = shown.split('\n').filter(Boolean)
  expect(lines[0]).toMatch(/^Codegen agent run #\d+ 👎 rejected: its verdict is fail$/)
  expect(lines[1]).toBe(
    'Verdict: ❌ fail: It renames the exported parseLine, which v1 clients import. (after 1 repair)'
  )
})
