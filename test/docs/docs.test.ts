/**
 * The tests of what users read: README.md and the docs/ pages (links, anchors, recipes, the
 * reference page written from action.yml), every YAML block and workflow, and each published
 * example workflow run as GitHub would run it. One jest file for them all, so that what they share
 * loads once (CONTRIBUTING.md, Tests): a new one goes in this folder and is imported here.
 */
import './docs-links.js'
import './docs-recipes.js'
import './examples.js'
import './reference-doc.js'
import './workflow-yaml.js'
