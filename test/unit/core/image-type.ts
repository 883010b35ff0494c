import { imageType } from '../../../src/image-type.js'

/** An image's type told by its first bytes alone (src/image-type.ts). */

const bytes = (...parts: Array<string | number[]>): Buffer =>
  Buffer.concat(
    parts.map(part => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part)))
  )

test('PNG, JPEG, GIF (87a and 89a) and WebP are told by their first bytes', () => {
  expect(imageType(bytes([0x89], 'PNG\r\n\x1a\n', [0, 0, 0, 13]))).toBe('png')
  expect(imageType(bytes([0xff, 0xd8, 0xff, 0xe0]))).toBe('jpeg')
  expect(imageType(bytes('GIF87a', [1, 0]))).toBe('gif')
  expect(imageType(bytes('GIF89a', [1, 0]))).toBe('gif')
  expect(imageType(bytes('RIFF', [0x24, 0, 0, 0], 'WEBPVP8 '))).toBe('webp')
})

test('SVG, HTML, another RIFF, a cut signature or nothing are not images', () => {
  for (const given of [
    bytes('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    bytes('<!DOCTYPE html><html>'),
    bytes('RIFF', [0x24, 0, 0, 0], 'WAVEfmt '),
    bytes([0x89], 'PNG\r\n'),
    bytes('GIF8'),
    bytes([0xff, 0xd8]),
    bytes('\uFEFF'),
    Buffer.alloc(0)
  ])
    expect(imageType(given)).toBeUndefined()
})

test('a Uint8Array is read as a Buffer is', () => {
  expect(imageType(new Uint8Array([0xff, 0xd8, 0xff, 0xdb]))).toBe('jpeg')
})
