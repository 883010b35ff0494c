/**
 * The flows of a /codegen thread's tracking comment, in process on the virtual clock against the emulator
 * and the fake GitHub. One jest file for them all, so that the action loads once (CONTRIBUTING.md,
 * Tests): a new flow of the tracking comment goes in comments/ and is imported here.
 */
import './comments/comments.js'
import './comments/comment-endings.js'
import './comments/comment-limits.js'
import './comments/comment-permissions.js'
import './comments/answer-comment.js'
import './comments/linear-text.js'
import './comments/live-differences.js'
import './comments/ci-fix.js'
import './comments/lost-answers.js'
import './plan/plan-approve.js'
import './plan/plan-report.js'
