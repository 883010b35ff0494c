/**
 * The flows of what starts a step on GitHub (comments, reviews, code comments, refusals), in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in triggers/ and is imported here.
 */
import './triggers/triggers.js'
import './triggers/trigger-refusals.js'
import './triggers/code-comment-triggers.js'
