import { problemsOf as problemsOfReading, readInputs, type Inputs } from '../../support/read-inputs.js'

/**
 * The `check-run` and `check-name` inputs (read by thread-inputs.ts with the other inputs of threads
 * and reports): their defaults, and one clear problem for a bad value.
 */

const valid = { 'api-token': 'tok-123456', 'org-id': '7', prompt: 'Fix it', 'github-token': 'ghs_x' }

const read = (inputs: Inputs) => readInputs(inputs)
const problemsOf = (inputs: Inputs): string[] => problemsOfReading(() => read(inputs))

test('defaults: a check run for runs asked for on a pull request, named Codegen', () => {
  expect(read(valid)).toMatchObject({ checkRun: 'auto', checkName: 'Codegen' })
})

test.each([
  ['auto', 'auto'],
  ['AUTO', 'auto'],
  ['true', 'true'],
  ['True', 'true'],
  ['FALSE', 'false'],
  [' false ', 'false']
])('check-run %j reads as %s', (text, mode) => {
  expect(read({ ...valid, 'check-run': text }).checkRun).toBe(mode)
})

test('check-name is kept as written, trimmed', () => {
  expect(read({ ...valid, 'check-name': ' Codegen review ' }).checkName).toBe('Codegen review')
})

test('bad values: one problem each, naming the input and what was expected', () => {
  expect(problemsOf({ ...valid, 'check-run': 'yes' })).toEqual([
    'check-run: expected auto, true or false, got "yes"'
  ])
  expect(problemsOf({ ...valid, 'check-run': 'tRuE' })).toEqual([
    'check-run: expected auto, true or false, got "tRuE"'
  ])
  expect(problemsOf({ ...valid, 'check-name': 'a\nb' })).toEqual([
    'check-name: expected one line of at most 100 characters, such as Codegen, got "a\nb"'
  ])
  expect(problemsOf({ ...valid, 'check-name': 'x'.repeat(101) })).toHaveLength(1)
  expect(problemsOf({ ...valid, 'check-name': 'x'.repeat(100) })).toEqual([])
  // Every problem at once, with the others'.
  expect(problemsOf({ 'api-token': '', 'check-run': 'maybe', 'check-name': '\u202eevil' })).toEqual([
    expect.stringMatching(/^api-token: required/),
    expect.stringMatching(/^prompt: required/),
    'check-run: expected auto, true or false, got "maybe"',
    expect.stringMatching(/^check-name: expected one line/)
  ])
})

test('check-run: true needs a github-token to write the check with', () => {
  expect(problemsOf({ ...valid, 'check-run': 'true', 'github-token': '' })).toEqual([
    "github-token: required with check-run: true (the check run is written with it); leave it unset for the job's GITHUB_TOKEN, or set check-run to auto"
  ])
  expect(problemsOf({ ...valid, 'check-run': 'true', 'github-token': 'ghs_x' })).toEqual([])
  expect(problemsOf({ ...valid, 'check-run': 'true', task: 'check' })).toEqual([])
})

test('check-run: true with wait: false is refused naming both inputs: a check needs the run’s ending', () => {
  expect(problemsOf({ ...valid, 'check-run': 'true', wait: 'false' })).toEqual([
    'check-run: true needs wait: true (a check run is concluded with the run’s ending, which a step with wait: false never sees); set wait to true, or check-run to auto or false'
  ])
  // auto (a step that does not wait writes none) and false are fine without waiting.
  expect(problemsOf({ ...valid, 'check-run': 'auto', wait: 'false' })).toEqual([])
  expect(problemsOf({ ...valid, 'check-run': 'false', wait: 'false' })).toEqual([])
  expect(problemsOf({ ...valid, 'check-run': 'true', wait: 'false', task: 'check' })).toEqual([])
})
