import { base64Forms, DEEPER_CUT, MAX_DEPTH, redactDeep, redactText } from '../../../src/redact.js'

/** Every form of a secret the service's text could carry is redacted, wherever it sits. */

const TOKEN = 'cg_sk_5e5e5e5e5e5e5e5e5e5e'
const GITHUB = 'ghs_0000secret1111github2222'
const secrets = [TOKEN, GITHUB]

const b64 = (text: string): string => Buffer.from(text).toString('base64')

describe('forms of a secret', () => {
  test.each([
    ['as it is', `token=${TOKEN};`],
    ['upper-cased', `TOKEN=${TOKEN.toUpperCase()}`],
    ['mixed case', `x ${TOKEN.replace(/e/g, 'E')} y`],
    ['URL-encoded', `?t=${encodeURIComponent(`${TOKEN}/`)}`],
    ['split by a line break', `${TOKEN.slice(0, 9)}\n${TOKEN.slice(9)}`],
    ['split by CR LF and indentation', `${TOKEN.slice(0, 5)}\r\n    ${TOKEN.slice(5)}`],
    ['split by a zero-width space', `${TOKEN.slice(0, 12)}\u200b${TOKEN.slice(12)}`],
    [
      'split by a soft hyphen and a word joiner',
      `${TOKEN.slice(0, 3)}\u00ad${TOKEN.slice(3, 7)}\u2060${TOKEN.slice(7)}`
    ],
    ['base64, alignment 0', b64(`${TOKEN}`)],
    ['base64, alignment 1', b64(`x${TOKEN}yz`)],
    ['base64, alignment 2', b64(`Authorization: Bearer ${TOKEN}\n`)],
    ['base64 wrapped at 8 columns', b64(`ab${TOKEN}`).replace(/(.{8})/g, '$1\n')],
    ['base64url', Buffer.from(`??${TOKEN}>>`).toString('base64url')],
    ['the GitHub token as it is', `GITHUB_TOKEN=${GITHUB}`],
    ['the GitHub token in base64', b64(`:${GITHUB}`)]
  ])('%s', (_, text) => {
    const out = redactText(text, secrets)
    expect(out).toContain('***')
    for (const secret of secrets) {
      const plain = out.replace(/[\s\u00ad\u200b\u2060]/g, '').toLowerCase()
      expect(plain).not.toContain(secret.toLowerCase())
      for (const form of base64Forms(secret)) expect(out.replace(/\s/g, '')).not.toContain(form)
    }
  })

  test.each([
    ['a line break escaped', `"${TOKEN.slice(0, 9)}\\n${TOKEN.slice(9)}"`],
    ['a tab and CR LF escaped', `${TOKEN.slice(0, 4)}\\t${TOKEN.slice(4, 8)}\\r\\n${TOKEN.slice(8)}`],
    ['a zero-width space escaped', `${TOKEN.slice(0, 12)}\\u200B${TOKEN.slice(12)}`],
    ['characters escaped', `\\u0063g\\u005Fsk_5e5e5e5e5e5e5e5e5e5e`],
    ['JSON inside JSON', JSON.stringify(JSON.stringify({ key: `${TOKEN.slice(0, 6)}\n${TOKEN.slice(6)}` }))]
  ])('escaped as a string literal writes it: %s', (_, text) => {
    expect(redactText(text, secrets)).toMatch(/\*\*\*/)
    expect(JSON.stringify(redactText(text, secrets))).not.toMatch(/5e5e5e5e/)
  })

  test('base64 forms at all three alignments are found in any longer stream', () => {
    for (let before = 0; before < 6; before++)
      for (let after = 0; after < 4; after++) {
        const encoded = b64(`${'p'.repeat(before)}${TOKEN}${'q'.repeat(after)}`)
        expect(base64Forms(TOKEN).some(form => encoded.includes(form))).toBe(true)
      }
  })

  test('URL-encoded, a secret with characters that encoding changes', () => {
    const secret = 'p@ss/w0rd+x=y&z'
    const out = redactText(
      `https://h/?a=${encodeURIComponent(secret)}&b=${encodeURIComponent(secret).toLowerCase()}`,
      [secret]
    )
    expect(out).toBe('https://h/?a=***&b=***')
  })

  test('ordinary text is left alone', () => {
    const text = 'The test passed: 42 files, cg_sk_ prefix documented, base64 aGVsbG8='
    expect(redactText(text, secrets)).toBe(text)
  })
})

describe('redactDeep', () => {
  test('object keys as well as values, nested, without merging two keys', () => {
    const value = {
      [TOKEN]: 'valid',
      [GITHUB]: { [TOKEN.toUpperCase()]: [`Bearer ${TOKEN}`] },
      safe: 1,
      list: [null, true, 2]
    }
    const out = redactDeep(value, secrets)
    const text = JSON.stringify(out)
    expect(text).not.toContain(TOKEN)
    expect(text).not.toContain(GITHUB)
    expect(text.toLowerCase()).not.toContain(TOKEN.toLowerCase())
    expect(out).toEqual({
      '***': 'valid',
      '*** (2)': { '***': ['Bearer ***'] },
      safe: 1,
      list: [null, true, 2]
    })
  })

  test('no secrets: the value as it was', () => {
    const value = { a: 'b', list: [1, { c: null }] }
    expect(redactDeep(value, [])).toEqual(value)
  })

  test('inherited names are not collisions; only keys redaction made equal are renamed', () => {
    const value = JSON.parse(
      `{"constructor":1,"toString":2,"valueOf":3,"__proto__":4,"*** (2)":5,"${TOKEN}":6,"${TOKEN.toUpperCase()}":7,"***":8}`
    )
    const out = redactDeep(value, secrets)
    expect(Object.keys(out)).toEqual([
      'constructor',
      'toString',
      'valueOf',
      '__proto__',
      '*** (2)',
      '*** (3)',
      '*** (4)',
      '***'
    ])
    expect(Object.values(out)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
  })

  test(`nesting deeper than ${MAX_DEPTH} levels is cut, never a stack overflow`, () => {
    let deep: unknown = `Bearer ${TOKEN}`
    for (let n = 0; n < 100_000; n++) deep = n % 2 ? { [TOKEN]: deep } : [deep]
    const out = redactDeep({ run: { extra: deep } }, secrets)
    const text = JSON.stringify(out)
    expect(text).toContain(JSON.stringify(DEEPER_CUT))
    expect(text).not.toContain(TOKEN)
    let depth = 0
    for (let node: unknown = out; node && typeof node === 'object'; depth++)
      node = Object.values(node as object)[0]
    expect(depth).toBe(MAX_DEPTH)
  })
})

test('redactDeep replaces secrets in nested strings', () => {
  expect(redactDeep({ a: ['x secret-token y'], b: { c: 'secret-token' }, n: 1 }, ['secret-token'])).toEqual({
    a: ['x *** y'],
    b: { c: '***' },
    n: 1
  })
})
