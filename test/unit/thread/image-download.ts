import { imageHosts, isFetchable } from '../../../src/thread/image-download.js'

/** Where a thread's images may come from (src/thread/image-download.ts): exact hosts, no credential. */

const SIGNED =
  'https://private-user-images.githubusercontent.com/61099/425857712-0f8f.png?jwt=eyJhbGciOiJIUzI1NiJ9.e30.sig'

describe('imageHosts', () => {
  test("on github.com: GitHub's two image hosts over https, and its attachments' links alone", () => {
    expect(imageHosts('https://github.com')).toEqual({
      origins: [
        'https://private-user-images.githubusercontent.com',
        'https://user-images.githubusercontent.com'
      ],
      prefixes: ['https://github.com/user-attachments/assets/']
    })
    expect(imageHosts('https://github.com/')).toEqual(imageHosts('https://github.com'))
  })

  test("on GitHub Enterprise Server: its own origin exactly, and its media host's, besides GitHub's", () => {
    expect(imageHosts('https://ghe.example.com:8443').origins.slice(2)).toEqual([
      'https://ghe.example.com:8443',
      'https://media.ghe.example.com:8443'
    ])
    expect(imageHosts('http://ghe.internal').origins.slice(2)).toEqual([
      'http://ghe.internal',
      'http://media.ghe.internal'
    ])
  })

  test('a loopback server (the local run) adds its origin and no media host; a bad URL adds nothing', () => {
    expect(imageHosts('http://127.0.0.1:4000').origins.slice(2)).toEqual(['http://127.0.0.1:4000'])
    expect(imageHosts('http://[::1]:4000').origins.slice(2)).toEqual(['http://[::1]:4000'])
    expect(imageHosts('not a url').origins).toHaveLength(2)
    expect(imageHosts('file:///srv/github').origins).toHaveLength(2)
  })
})

describe('isFetchable', () => {
  const github = imageHosts('https://github.com')
  const ghes = imageHosts('https://ghe.example.com')

  test("a signed address on GitHub's image hosts is, and the older public host's", () => {
    expect(isFetchable(SIGNED, github)).toBe(true)
    expect(isFetchable('https://user-images.githubusercontent.com/1/abc.png', github)).toBe(true)
    expect(isFetchable('HTTPS://Private-User-Images.GitHubUserContent.com/1/a.png', github)).toBe(true)
    expect(isFetchable('https://private-user-images.githubusercontent.com:443/1/a.png', github)).toBe(true)
  })

  test("github.com's attachments' links are, and nothing else of github.com", () => {
    expect(isFetchable('https://github.com/user-attachments/assets/0bec7adc-52c5', github)).toBe(true)
    for (const url of [
      'https://github.com/user-attachments/assets/',
      'https://github.com/user-attachments/assets/../../logout',
      'https://github.com/user-attachments/assets/%2e%2e/%2e%2e/logout',
      'https://github.com/octo/repo/raw/main/a.png',
      'https://github.com/login',
      'http://github.com/user-attachments/assets/0bec7adc'
    ])
      expect([url, isFetchable(url, github)]).toEqual([url, false])
  })

  test('an address with a credential in it never is, even an empty one', () => {
    for (const url of [
      SIGNED.replace('https://', 'https://user:pass@'),
      SIGNED.replace('https://', 'https://token@'),
      SIGNED.replace('https://', 'https://:x@'),
      SIGNED.replace('https://', 'https://@'),
      'https://github.com@private-user-images.githubusercontent.com/1/a.png'
    ])
      expect([url, isFetchable(url, github)]).toEqual([url, false])
  })

  test('another scheme, port or host never is: exact names, no look-alike', () => {
    for (const url of [
      SIGNED.replace('https://', 'http://'),
      SIGNED.replace('.com/', '.com:8443/'),
      SIGNED.replace('.com/', '.com./'),
      SIGNED.replace('.com/', '.com.evil.example/'),
      SIGNED.replace('private-user-images', 'private-user-images2'),
      'https://camo.githubusercontent.com/abc/def',
      'https://objects.githubusercontent.com/a.png',
      'https://evil.example/private-user-images.githubusercontent.com/a.png',
      'data:image/png;base64,iVBORw0KGgo=',
      'file:///etc/passwd',
      'javascript:alert(1)',
      '/1/a.png',
      '//private-user-images.githubusercontent.com/1/a.png',
      'private-user-images.githubusercontent.com/1/a.png',
      '',
      `https://private-user-images.githubusercontent.com/${'a'.repeat(20_000)}`
    ])
      expect([url.slice(0, 80), isFetchable(url, github)]).toEqual([url.slice(0, 80), false])
  })

  test("GitHub Enterprise Server's own origin is, exactly: not another of its ports or schemes", () => {
    expect(isFetchable('https://ghe.example.com/storage/user/1/files/a.png', ghes)).toBe(true)
    expect(isFetchable('https://media.ghe.example.com/user/1/files/a.png', ghes)).toBe(true)
    expect(isFetchable('http://ghe.example.com/storage/a.png', ghes)).toBe(false)
    expect(isFetchable('https://ghe.example.com:8443/storage/a.png', ghes)).toBe(false)
    expect(isFetchable('https://other.ghe.example.com/a.png', ghes)).toBe(false)
    expect(isFetchable('https://ghe.example.com/storage/a.png', github)).toBe(false)
  })
})
