import {
  chooseImages,
  findImages,
  imagePlaceholder,
  MAX_REFERENCES,
  textPlace,
  withPlaceholders,
  type FoundImages
} from '../../../src/thread/thread-images.js'
import { imageHosts } from '../../../src/thread/image-download.js'

/** The thread's images found, matched to GitHub's signed addresses, chosen and placed (src/thread/thread-images.ts). */

const hosts = imageHosts('https://github.com')
const ID_A = '0f6e1c52-3b1a-4c39-9d2e-7a1b2c3d4e5f'
const ID_B = '9a8b7c6d-5e4f-4321-8765-0fedcba98765'
const asset = (id: string): string => `https://github.com/user-attachments/assets/${id}`
const signed = (id: string, n = 1): string =>
  `https://private-user-images.githubusercontent.com/4242/39${n}000000-${id}.png?jwt=eyJhbGciOi.${id.slice(0, 4)}.sig`
const img = (src: string): string =>
  `<p><a target="_blank" rel="noopener noreferrer" href="${src.replace(/&/g, '&amp;')}"><img src="${src.replace(/&/g, '&amp;')}" alt="x" style="max-width: 100%;"></a></p>`

const find = (text: string, html = '', where = "@alice's comment of 2026-12-01"): FoundImages =>
  findImages({ text, html, where }, hosts)

describe('findImages', () => {
  test('a Markdown attachment is matched to its signed address by its id, wherever the HTML lists it', () => {
    const found = find(
      `The button overlaps:\n\n![shot](${asset(ID_A)})\n\nand ![second](${asset(ID_B)})`,
      img(signed(ID_B, 2)) + img(signed(ID_A, 1))
    )
    expect(found.references.map(r => r.url)).toEqual([signed(ID_A, 1), signed(ID_B, 2)])
    expect(found.references.every(r => r.fetchable)).toBe(true)
    expect(found.references.map(r => r.key)).toEqual([ID_A, ID_B])
  })

  test('reference-style images and <img src> are images too', () => {
    const found = find(
      `![look][shot]\n\n<img width="300" alt="two" src="${asset(ID_B)}">\n\n[shot]: ${asset(ID_A)}`,
      img(signed(ID_A)) + img(signed(ID_B))
    )
    expect(found.references.map(r => r.key)).toEqual([ID_A, ID_B])
    expect(found.references.map(r => r.url)).toEqual([signed(ID_A), signed(ID_B)])
  })

  test('an attachment whose id no signed address names takes the next unmatched one, in order', () => {
    const other = 'https://private-user-images.githubusercontent.com/4242/renamed.png?jwt=abc'
    const found = find(`![](${asset(ID_A)}) ![](${asset(ID_B)})`, img(signed(ID_B)) + img(other))
    expect(found.references.map(r => r.url)).toEqual([other, signed(ID_B)])
  })

  test('the older user-images attachments match by their file name', () => {
    const old = 'https://user-images.githubusercontent.com/4242/123456-abc.png'
    const found = find(
      `![](${old})`,
      img('https://private-user-images.githubusercontent.com/4242/123456-abc.png?jwt=t')
    )
    expect(found.references[0]?.url).toBe(
      'https://private-user-images.githubusercontent.com/4242/123456-abc.png?jwt=t'
    )
  })

  test('without HTML an attachment keeps its own address', () => {
    expect(find(`![](${asset(ID_A)})`).references[0]).toMatchObject({ url: asset(ID_A), fetchable: true })
  })

  test('another host, a data URI and a relative path are links, not fetched', () => {
    const found = find(
      '![](https://example.com/a.png) ![](data:image/png;base64,iVBORw0KGgo=) ![](docs/b.png) ![](http://github.com/user-attachments/assets/x)'
    )
    expect(found.references).toHaveLength(4)
    expect(found.references.map(r => r.fetchable)).toEqual([false, false, false, false])
  })

  test('what a reader does not see is no image: hidden HTML, fenced code', () => {
    const found = find(`<!-- ![](${asset(ID_A)}) -->\n\`\`\`\n![](${asset(ID_B)})\n\`\`\`\ntext`)
    expect(found.references).toEqual([])
  })

  test('a text of 5,000 references looks at MAX_REFERENCES of them, and keeps the keys of the rest, each once', () => {
    const text = Array.from({ length: 5000 }, (_, i) => `![](${asset(`id-${i}`)})`).join(' ')
    const found = find(
      `${text} ![](${asset('id-4999')}) ![](https://example.com/x.png)`,
      img(signed(ID_A)).repeat(5000)
    )
    expect(found.references).toHaveLength(MAX_REFERENCES)
    expect(found.beyond).toHaveLength(5000 - MAX_REFERENCES)
    expect(found.beyond[0]).toBe(`id-${MAX_REFERENCES}`)
    // Only 10 go with a run: every one past them is counted as left out for the cap, once.
    const { chosen, leftOut } = chooseImages([found], 10)
    expect(chosen).toHaveLength(10)
    expect(leftOut).toHaveLength(4990)
  })
})

describe('chooseImages', () => {
  test('in the texts’ order, each image once, at most room; the rest left out for the cap', () => {
    const asking = find(`![](${asset(ID_A)}) ![](${asset(ID_A)}) ![](https://example.com/x.png)`)
    const body = find(`![](${asset(ID_B)}) ![](${asset('c')})`, '', "the issue's description")
    const { chosen, leftOut } = chooseImages([asking, body], 2)
    expect(chosen.map(c => c.key)).toEqual([ID_A, ID_B])
    expect(chosen.map(c => c.where)).toEqual(["@alice's comment of 2026-12-01", "the issue's description"])
    expect(leftOut).toEqual([{ where: "the issue's description", why: 'cap' }])
  })
})

describe('withPlaceholders', () => {
  test('an image sent is named by its number where it was; the others stay as written', () => {
    const found = find(
      `Look ![x](${asset(ID_A)}) and ![](https://example.com/y.png) again ![](${asset(ID_A)})`
    )
    expect(withPlaceholders(found, new Map([[ID_A, 2]]))).toBe(
      `Look [Image 2: in @alice's comment of 2026-12-01] and ![](https://example.com/y.png) again [Image 2: in @alice's comment of 2026-12-01]`
    )
  })

  test('no signed address reaches the prompt', () => {
    const found = find(`![](${asset(ID_A)})`, img(signed(ID_A)))
    const text = withPlaceholders(found, new Map([[ID_A, 1]]))
    expect(text).not.toContain('jwt=')
    expect(text).toBe(imagePlaceholder(1, "@alice's comment of 2026-12-01"))
  })
})

describe('textPlace', () => {
  test.each([
    [textPlace('comment', 'alice', '2026-12-01T10:00:00Z', 'issue'), "@alice's comment of 2026-12-01"],
    [textPlace('review', 'bob', '2026-12-02T10:00:00Z', 'pull request'), "@bob's review of 2026-12-02"],
    [textPlace('code comment', 'x<y>', undefined, 'pull request'), "@xy's comment on the code"],
    [textPlace('body', 'carol', undefined, 'issue'), "the issue's description"]
  ])('%s', (place, expected) => expect(place).toBe(expected))
})
