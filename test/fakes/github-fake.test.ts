/**
 * The fake GitHub (scripts/github-fake/), each request it answers held to GitHub's REST description:
 * comments, check runs, findings, Actions' jobs and logs, faults. One jest file for them all, so that the
 * fake loads once (CONTRIBUTING.md, Tests): a new test of the fake goes in github-fake/ and is imported here.
 */
import './github-fake/github-fake.js'
import './github-fake/comments.js'
import './github-fake/check-runs.js'
import './github-fake/findings.js'
import './github-fake/actions.js'
import './github-fake/faults.js'
