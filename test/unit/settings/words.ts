import { words } from '../../../src/settings/words.js'

/** The one reading of fail-on, mirror-logs and stop-run-on: known words, or none for the empty set. */

const KNOWN = ['failure', 'timeout', 'paused']

function read(text: string): { set: string[]; problems: string[] } {
  const problems: string[] = []
  const set = words('fail-on', text, KNOWN, problems)
  return { set: [...set], problems }
}

test('comma, space or newline separated, in any case, each word once', () => {
  expect(read('failure,timeout')).toEqual({ set: ['failure', 'timeout'], problems: [] })
  expect(read(' Failure ,\n  TIMEOUT paused\t')).toEqual({
    set: ['failure', 'timeout', 'paused'],
    problems: []
  })
  expect(read('failure, failure')).toEqual({ set: ['failure'], problems: [] })
})

test('none alone is the empty set, in any case', () => {
  expect(read('none')).toEqual({ set: [], problems: [] })
  expect(read(' NONE\n')).toEqual({ set: [], problems: [] })
})

test('none beside other words is an unknown word, not the empty set', () => {
  const { set, problems } = read('none, failure')
  expect(set).toEqual(['failure'])
  expect(problems).toEqual([
    'fail-on: expected a comma-separated list of failure, timeout, paused (or none), got "none"'
  ])
})

test('unknown words: one problem naming the input, the known words and the unknown ones; the known kept', () => {
  const { set, problems } = read('failure, timout, cancel')
  expect(set).toEqual(['failure'])
  expect(problems).toEqual([
    'fail-on: expected a comma-separated list of failure, timeout, paused (or none), got "timout, cancel"'
  ])
})

test('an empty or blank list is a problem, quoting what was written', () => {
  expect(read('')).toEqual({
    set: [],
    problems: ['fail-on: expected a comma-separated list of failure, timeout, paused (or none), got ""']
  })
  expect(read(' , \n')).toEqual({
    set: [],
    problems: ['fail-on: expected a comma-separated list of failure, timeout, paused (or none), got " , \n"']
  })
})

test('a word that only contains a known one is not it', () => {
  expect(read('failures').set).toEqual([])
  expect(read('fail').problems).toHaveLength(1)
})
