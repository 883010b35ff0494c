import type { ShownImages, ThreadImages } from '../model.js'
import type { Clock } from '../clock.js'
import type { GitHubApi } from '../github/api.js'
import { stripHidden } from './thread-prompt.js'
import {
  gatherImages,
  type GatheredImages,
  type ImageSource,
  type ThreadImageDeps
} from './thread-image-fetch.js'
import type { ThreadTrigger } from './trigger.js'

/**
 * A thread request's images (thread-images): which of the thread's texts they are read from, the
 * texts as the prompts show them (each image sent named by its placeholder), and which go with the
 * run (a follow-up's resume: the asking text's alone) and with the fresh run that would carry it on.
 */

/** thread-images: how the thread's images are downloaded, after the `images` input's (`taken`); no `images`: none. */
export interface ImagesDeps {
  github: GitHubApi
  clock: Clock
  warn: (message: string) => void
  images?: Pick<ThreadImageDeps, 'fetch' | 'signal' | 'hosts'> & { taken: { count: number; bytes: number } }
}

export interface SentImages {
  images: string[]
  report: ThreadImages
}

/** thread-images: the thread's images downloaded, with the texts they are in; undefined: none asked or none to find. */
export async function threadImages(
  trigger: ThreadTrigger,
  deps: ImagesDeps
): Promise<{ sources: ImageSource[]; found: GatheredImages } | undefined> {
  const sources = imageSources(trigger)
  if (!deps.images || sources.length === 0) return undefined
  const kind = trigger.thread.isPullRequest ? 'pull request' : 'issue'
  const found = await gatherImages(sources, kind, deps.images.taken, {
    ...deps.images,
    github: deps.github,
    clock: deps.clock,
    warn: deps.warn
  })
  return found && { sources, found }
}

/**
 * The texts of the thread the prompts quote, in the order their images go: the asking comment (or
 * review) first, then the thread's body. A label or an assignment asks nothing in words: the body alone.
 */
function imageSources(trigger: ThreadTrigger): ImageSource[] {
  const sources: ImageSource[] = []
  const text = trigger.instruction
  if (text && trigger.trigger === 'comment' && trigger.commentId !== undefined)
    sources.push({ source: { commentId: trigger.commentId }, kind: 'comment', text })
  else if (text && trigger.trigger === 'review-comment' && trigger.commentId !== undefined)
    sources.push({ source: { reviewCommentId: trigger.commentId }, kind: 'code comment', text })
  else if (text && trigger.trigger === 'review' && trigger.reviewId !== undefined)
    sources.push({
      source: { pullNumber: trigger.thread.number, reviewId: trigger.reviewId },
      kind: 'review',
      text
    })
  else if (text && trigger.trigger === 'issue')
    sources.push({ source: { issueNumber: trigger.thread.number }, kind: 'body', text })
  sources.push({ source: { issueNumber: trigger.thread.number }, kind: 'body', text: trigger.thread.body })
  return sources
}

/** The instruction and the body as the prompt quotes them, each image sent named by its placeholder. */
export function shownTexts(
  trigger: ThreadTrigger,
  sources: ImageSource[],
  gathered: GatheredImages
): { instruction: string; body: string } {
  const asked = sources.length > 1
  return {
    instruction: asked ? (gathered.texts[0] ?? '') : stripHidden(trigger.instruction),
    body: gathered.texts[sources.length - 1] ?? ''
  }
}

/**
 * What goes with the run: a follow-up resumes a run that has the thread already, so only the asking
 * text's images (source 0, the first in order, so their numbers are the same in both); the fresh run
 * that would carry it on, every one its prompt quotes.
 */
export function sentImages(
  gathered: GatheredImages,
  followUp: boolean
): { run: SentImages; carryOn?: SentImages } {
  const all: SentImages = {
    images: gathered.images.map(image => image.dataUri),
    report: { sent: gathered.images.map(image => ({ where: image.where })), leftOut: gathered.leftOut }
  }
  if (!followUp) return { run: all }
  const asking = gathered.images.filter(image => image.source === 0)
  const run: SentImages = {
    images: asking.map(image => image.dataUri),
    report: {
      sent: asking.map(image => ({ where: image.where })),
      leftOut: gathered.leftOut.filter(left => left.where === gathered.places[0])
    }
  }
  return { run, carryOn: all }
}

/**
 * The thread's images as the reports tell them, when there is something to tell: a follow-up whose
 * comment has no image of its own, or a thread whose images are all links kept, says nothing.
 */
export function toldImages(images: SentImages | undefined): ThreadImages | undefined {
  const report = images?.report
  return report && report.sent.length + report.leftOut.length > 0 ? report : undefined
}

/** What the tracking comment tells of the images once the run started (or carried the thread on). */
export function shownImages(images: { run: SentImages; carryOn?: SentImages } | undefined): ShownImages {
  const run = toldImages(images?.run)
  const carryOn = toldImages(images?.carryOn)
  return { ...(run ? { run } : {}), ...(carryOn ? { carryOn } : {}) }
}
