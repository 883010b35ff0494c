/**
 * How a paused run is answered, written once for every text that says it: the job summary, the
 * check run, the step's annotations and the tracking comment. A step can always answer it (resume
 * the run by its id, the answer as its prompt); a comment on the thread can when the run was asked
 * for on one. The same words serve Markdown and plain text: the backticks are code spans in one and
 * quote marks in the other (the phrase is one word, the id a number).
 */

/** The label of a paused run's question, the agent's: the same on every surface. */
export const QUESTION = 'The agent’s question'

/** Where the text shows, which decides what it can say of the thread. */
export type AnswerSurface =
  /** The tracking comment: it is on the thread, so a reply is the way. */
  | { on: 'thread'; phrase: string }
  /** A text off the thread (summary, check run, annotation): a step, and the thread when the run was asked for on one. */
  | { on: 'report'; runId: number; thread?: ThreadNamed }

/** The thread a run was asked for on, as a text off it names it. */
export interface ThreadNamed {
  /** "the pull request" where only one can have asked (a check run's); else {@link THREAD_THAT_ASKED}. */
  name: string
  /** The comment's phrase; without it the text sends the reader to the tracking comment, which gives it. */
  phrase?: string
}

/** The thread of a run asked for on an issue or a pull request, named by a text off it. */
export const THREAD_THAT_ASKED = 'the issue or pull request that asked for it'

/** Was the run asked for on a thread (a comment, a CI fix), from the report's `trigger`: a run from inputs was not. */
export function askedOnThread(trigger: string | undefined): boolean {
  return trigger !== undefined && trigger !== '' && trigger !== 'inputs'
}

/** How to answer a paused run, as a sentence for a report, or a reply's clause for the thread. */
export function howToAnswer(surface: AnswerSurface): string {
  if (surface.on === 'thread') return `reply ${comment(surface.phrase)} to answer it and continue this run`
  const step = `a step with \`agent-run-id: ${surface.runId}\` and the answer as \`prompt\``
  const { thread } = surface
  if (!thread) return `Answer by resuming the run in ${step}.`
  const onThread = thread.phrase
    ? `with a comment ${comment(thread.phrase)} on ${thread.name}`
    : `on ${thread.name} (its tracking comment says how)`
  return `Answer ${onThread}, or resume the run in ${step}.`
}

const comment = (phrase: string): string => `\`${phrase} <answer>\``
