/**
 * The flows of the agent's answer (verdict, output-schema, repairs by resume), in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in answers/ and is imported here.
 */
import './answers/answer-repairs.js'
import './answers/structured-answers.js'
import './answers/verdict-repairs.js'
import './answers/hostile-answers.js'
import './answers/refused-resume.js'
import './answers/repair-cannot-start.js'
