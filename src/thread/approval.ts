import type { CommentSummary, GitHubApi } from '../github/api.js'
import type { Settings } from '../settings/settings.js'
import type { FoundTracking } from './tracking.js'
import { askOf, matchPhrase } from './trigger.js'

/**
 * An approval (`/codegen approve`) as the thread decides it: pinned to the plan the tracking comment
 * showed when the approval was written (its signed marker's digest, its last edit before the
 * approval), and made by someone who may approve (the `approvers` input, teams read through GitHub).
 * Plain data out; the plan's text is read from the service later (agent-run/plan-run.ts).
 */

/** The plan an approval carries out, as the thread knows it: its run, its digest. */
export interface PinnedPlan {
  runId: number
  digest: string
}

/**
 * The plan awaiting approval that `writtenAt` (the approval's creation, ISO 8601) saw, or why there
 * is none: no plan on the thread, a revision still being written, or a plan shown after the approval
 * was written (GitHub's times are to the second: an edit in the approval's own second counts as after).
 */
export function pinnedPlan(
  found: FoundTracking['found'],
  writtenAt: string | undefined,
  phrase: string
): PinnedPlan | { refused: string } {
  if (found?.plan === undefined)
    return {
      refused: `No plan awaits approval on this thread: nothing was carried out. Ask for one with \`${phrase} plan <task>\`.`
    }
  if (found.plan === 'working')
    return {
      refused: `A newer plan awaits approval: a plan (or its revision) is still being written, so nothing was carried out. Read it once the tracking comment shows it, then reply \`${phrase} approve\`.`
    }
  const written = Date.parse(writtenAt ?? '')
  const shown = Date.parse(found.updatedAt ?? '')
  if (!(written > shown))
    return {
      refused: `A newer plan awaits approval: the tracking comment's plan was written after this approval${Number.isNaN(written) ? ' (the event gives no time for it)' : ''}, so nothing was carried out. Read the plan it shows now, then reply \`${phrase} approve\` to carry it out.`
    }
  return { runId: found.runId, digest: found.plan }
}

/** Who may approve a plan here, as a refusal says it. */
export function whoMayApprove(settings: Pick<Settings, 'approvers' | 'allowSelfApproval'>): string {
  const approvers = settings.approvers
  const named = approvers
    ? [
        ...[...approvers.logins].map(login => `@${login}`),
        ...approvers.teams.map(team => `members of ${team.org}/${team.slug}`)
      ]
    : []
  const who = approvers
    ? `only ${listed(named)} may approve a plan here (the approvers input)`
    : 'anyone who may trigger a run (write access to the repository, or a bot allowed-bots names) may approve a plan here'
  return settings.allowSelfApproval ? `${who}.` : `${who}, other than the person who asked for it.`
}

function listed(names: string[]): string {
  if (names.length <= 1) return names.join('')
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1] ?? ''}`
}

/**
 * Why `login` may not approve (`approvers` names neither them nor a team they are an active member
 * of), or undefined when they may. Every listed team is asked until one has them; a team GitHub
 * would not tell of (a 403: the token may not read the organization's teams) is named in the refusal.
 */
export async function approverRefusal(
  login: string,
  settings: Pick<Settings, 'approvers' | 'allowSelfApproval'>,
  github: Pick<GitHubApi, 'teamMember'>
): Promise<string | undefined> {
  const approvers = settings.approvers
  if (!approvers || approvers.logins.has(login.toLowerCase())) return undefined
  const unread: string[] = []
  for (const team of approvers.teams) {
    try {
      if (await github.teamMember(team.org, team.slug, login)) return undefined
    } catch (error) {
      unread.push(`${team.org}/${team.slug} (${(error as Error).message.slice(0, 200)})`)
    }
  }
  const unknown =
    unread.length > 0
      ? ` GitHub would not say whether @${login} is a member of ${unread.join(', ')}: the github-token needs to read the organization's teams (the workflow's GITHUB_TOKEN cannot; a token with the organization's members: read can).`
      : ''
  return `@${login} may not approve this plan: ${whoMayApprove(settings)}${unknown}`
}

/**
 * Who asked for a revision of the plan the tracking comment `found` shows before `writtenAt`: the
 * authors (lower case) of the plan requests written on the thread since that comment was posted (a
 * revision edits it). The plan's run's metadata names its first asker alone (a resume takes none),
 * yet a reviser shaped the plan too: allow-self-approval false refuses them as it refuses the asker.
 */
export function planRevisers(
  comments: CommentSummary[],
  found: FoundTracking['found'],
  writtenAt: string | undefined,
  rules: { phrase: string; plan: boolean }
): Set<string> {
  const revisers = new Set<string>()
  const since = found?.createdAt ?? ''
  for (const comment of comments) {
    const at = comment.createdAt ?? ''
    if (comment.id === found?.id || at < since || (writtenAt !== undefined && at > writtenAt)) continue
    const instruction = matchPhrase(comment.body, rules.phrase)
    if (instruction !== undefined && askOf(instruction, rules.plan).ask === 'plan')
      revisers.add(comment.author.login.toLowerCase())
  }
  return revisers
}
