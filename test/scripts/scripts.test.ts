/**
 * The tests of the tools: npm start against the emulator and the sample GitHub, the preview pages,
 * the pages the screenshots are taken of. One jest file for them all, so that what they share loads
 * once (CONTRIBUTING.md, Tests): a new one goes in this folder and is imported here.
 */
import './local-run.js'
import './preview.js'
import './screenshot-pages.js'
