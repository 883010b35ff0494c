/** A fake of GitHub's REST API for the action's comment, label, assignment and review workflows: `new FakeGitHub().start()`. */
export { FakeGitHub } from './server.js'
export type * from './types.js'
export type * from './shapes.js'
export type { LostAnswer } from './faults.js'
