/**
 * The GitHub calls of a step on alice's `/codegen` comment on pull request 7, in the order the step
 * makes them: [what a test calls it, its path, its method]. The stall tests hang each in turn, end
 * to end and on the virtual clock (flows/deadlines/github-stalls.ts, step-deadlines.ts).
 */
export const COMMENT_STEP_CALLS: Array<[string, RegExp, string]> = [
  ['the permission check', /\/collaborators\/alice\/permission$/, 'GET'],
  ['the reaction', /\/reactions$/, 'POST'],
  ['the identity lookup', /^\/user$/, 'GET'],
  ['the comment listing', /\/issues\/7\/comments$/, 'GET'],
  ['the review comment listing', /\/pulls\/7\/comments$/, 'GET'],
  ['the pull request lookup', /\/pulls\/7$/, 'GET'],
  ['the tracking comment', /\/issues\/7\/comments$/, 'POST'],
  // Edits come after the comment, the run and a second's spacing of writes.
  ['every comment edit', /\/issues\/comments\/\d+$/, 'PATCH']
]
