/**
 * The flows of a hostile service and secrets (endless lying logs, tokens echoed back), in process on the virtual clock against the emulator (and the fake GitHub where GitHub is in the
 * flow). One jest file for them all, so that the action loads once (CONTRIBUTING.md, Tests): a new flow
 * of this kind goes in hostile/ and is imported here.
 */
import './hostile/hostile.js'
import './hostile/secrecy.js'
