import { CHECK_RUN_MODES, type Approvers, type CheckRunMode, type InputName } from './settings.js'
import { CI_FIX_EVENT } from './workflow-context.js'
import { boolean } from './values.js'

/**
 * The inputs of threads and reports: who and what may start a run on a thread (the trigger phrase,
 * the assignee, the bots let in, the GitHub token), and where the run is shown besides the job (the
 * tracking comment, review comments, the check run). Each reader takes the input reader and the one
 * list of problems, as every reader of settings/ does (read-settings.ts).
 */

type Input = { input: (name: InputName) => string; problems: string[] }

/** Who and what may start a run on a thread. */
export function readThreads({ input, problems }: Input) {
  return {
    triggerPhrase: triggerPhrase(input('trigger-phrase'), problems),
    assigneeTrigger: assigneeLogin(input('assignee-trigger'), problems),
    allowedBots: allowedBots(input('allowed-bots'), problems),
    githubToken: input('github-token')
  }
}

/**
 * Plan, then approve: whether a thread's request asks for a plan only, who may approve one and whether
 * its asker may. `plan: true` needs a thread in the event (`threadEvent`: an issue's or pull request's
 * trigger, not a workflow_run), else it is one problem here, before any request.
 */
export function readPlans({ input, problems }: Input, threadEvent: { eventName: string; trigger: boolean }) {
  const plan = boolean('plan', input('plan'), problems)
  if (plan && (!threadEvent.trigger || threadEvent.eventName === CI_FIX_EVENT))
    problems.push(
      `plan: true needs an issue or pull request in the event (an issue opened, labelled or assigned, a comment, a review, a pull request with label-trigger); the ${threadEvent.eventName || 'workflow'} event has none: set plan to false, or run on such an event`
    )
  const approvers = readApprovers(input('approvers'), problems)
  return {
    plan,
    ...(approvers ? { approvers } : {}),
    allowSelfApproval: boolean('allow-self-approval', input('allow-self-approval'), problems)
  }
}

/** An organization's login, and a team's slug (lower-case letters, digits, `-` and `_`, as GitHub makes them). */
const ORG = /^[a-z\d](?:[a-z\d]|-(?=[a-z\d])){0,38}$/i
const TEAM_SLUG = /^[a-z\d][a-z\d_-]{0,99}$/i

/** `approvers`: logins and `org/team` slugs (comma, space or newline separated); undefined when empty. */
function readApprovers(text: string, problems: string[]): Approvers | undefined {
  const list = text
    .split(/[\s,]+/)
    .map(name => name.replace(/^@/, ''))
    .filter(Boolean)
  if (list.length === 0) return undefined
  const logins = new Set<string>()
  const teams: Approvers['teams'] = []
  const bad: string[] = []
  for (const name of list) {
    const [org = '', slug, ...more] = name.split('/')
    if (slug === undefined && LOGIN.test(org)) logins.add(org.toLowerCase())
    else if (slug !== undefined && more.length === 0 && ORG.test(org) && TEAM_SLUG.test(slug))
      teams.push({ org: org.toLowerCase(), slug: slug.toLowerCase() })
    else bad.push(name)
  }
  if (bad.length > 0)
    problems.push(
      `approvers: expected comma-separated GitHub logins and org/team slugs such as alice, octo-org/reviewers, got "${bad.slice(0, 5).join(', ').slice(0, 200)}"`
    )
  return { logins, teams }
}

/** Where the run is shown besides the job: the tracking comment, the check run. */
export function readReporting({ input, problems }: Input) {
  return {
    comment: boolean('comment', input('comment'), problems),
    reviewComments: boolean('review-comments', input('review-comments'), problems),
    checkRun: checkRunMode(input('check-run'), problems),
    checkName: checkName(input('check-name'), problems)
  }
}

function triggerPhrase(text: string, problems: string[]): string {
  if (/\s/.test(text)) problems.push(`trigger-phrase: expected one word such as /codegen, got "${text}"`)
  return text
}

/** `auto`, or the YAML booleans as the other boolean inputs take them. */
function checkRunMode(text: string, problems: string[]): CheckRunMode {
  const mode = text.toLowerCase() as CheckRunMode
  if (
    CHECK_RUN_MODES.includes(mode) &&
    (mode === 'auto' || ['true', 'True', 'TRUE', 'false', 'False', 'FALSE'].includes(text))
  )
    return mode
  problems.push(`check-run: expected auto, true or false, got "${text}"`)
  return 'false'
}

/** GitHub shows the name on one line, and branch protection matches it exactly. */
const MAX_CHECK_NAME_CHARS = 100

function checkName(text: string, problems: string[]): string {
  if (/[\p{Cc}\p{Cf}]/u.test(text) || [...text].length > MAX_CHECK_NAME_CHARS) {
    problems.push(
      `check-name: expected one line of at most ${MAX_CHECK_NAME_CHARS} characters, such as Codegen, got "${text.slice(0, 120)}"`
    )
  }
  return text
}

/** GitHub logins: letters, digits and single hyphens; an app's bot account ends in `[bot]`. */
const LOGIN = /^[a-z\d](?:[a-z\d]|-(?=[a-z\d])){0,38}(\[bot\])?$/i

function assigneeLogin(text: string, problems: string[]): string {
  const login = text.replace(/^@/, '')
  if (login && !LOGIN.test(login)) {
    problems.push(`assignee-trigger: expected a GitHub login such as codegen-agent, got "${text}"`)
  }
  return login
}

/**
 * `*`, or bot logins (comma, space or newline separated), kept lower case and without `[bot]`:
 * `renovate` and `renovate[bot]` name the same app.
 */
function allowedBots(text: string, problems: string[]): ReadonlySet<string> | '*' {
  const list = text
    .split(/[\s,]+/)
    .map(login => login.replace(/^@/, ''))
    .filter(Boolean)
  if (list.includes('*')) {
    if (list.length > 1) problems.push('allowed-bots: expected either * or a list of bot logins, not both')
    return '*'
  }
  const bad = list.filter(login => !LOGIN.test(login))
  if (bad.length > 0) {
    problems.push(
      `allowed-bots: expected comma-separated bot logins such as renovate[bot] (or *), got "${bad.join(', ')}"`
    )
  }
  return new Set(list.map(login => login.toLowerCase().replace(/\[bot\]$/, '')))
}
