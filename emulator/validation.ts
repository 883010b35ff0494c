import type { ValidationIssue } from './types.js'

/**
 * Request validation with the live service's 422 bodies: FastAPI validates every path, query and
 * body parameter before the endpoint runs, collects all the errors, and answers
 * `{"detail": [{"type", "loc", "msg", "input", "ctx"?}]}` with pydantic v2's types and messages.
 *
 * Deliberately stricter than pydantic's lax mode in one respect: a JSON body field declared as an
 * integer must be a JSON number (pydantic would also take "101"), so a client sending ids as text
 * is caught here rather than working by accident.
 */

/** The request body as it arrived: FastAPI only parses it as JSON under a JSON content type (or none). */
export type RequestBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'invalid-json'; text: string; position: number }
  | { kind: 'other'; text: string }

export function readBody(text: string, contentType: string | undefined): RequestBody {
  if (text === '') return { kind: 'none' }
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  const isJson =
    mediaType === '' || mediaType === 'application/json' || /^application\/.+\+json$/.test(mediaType)
  if (!isJson) return { kind: 'other', text }
  try {
    return { kind: 'json', value: JSON.parse(text) }
  } catch (error) {
    const position = /position (\d+)/.exec(String(error))?.[1]
    return { kind: 'invalid-json', text, position: position === undefined ? 0 : Number(position) }
  }
}

/** What the recorded request shows as its body. */
export function recordedBody(body: RequestBody): unknown {
  switch (body.kind) {
    case 'none':
      return undefined
    case 'json':
      return body.value
    case 'invalid-json':
    case 'other':
      return body.text
  }
}

type Json = Record<string, unknown>

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** pydantic's rendering of allowed values: 'a', 'b' or 'c'. */
const choices = (values: readonly string[]): string => {
  const quoted = values.map(value => `'${value}'`)
  return quoted.length < 2 ? (quoted[0] ?? '') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`
}

const INTEGER_TEXT = /^\s*[+-]?\d+\s*$/

/** The service's cap on a run's images, in characters of their data URIs together (10 MiB). */
export const MAX_IMAGES_CHARACTERS = 10 * 1024 * 1024
const IMAGE_DATA_URI_HEAD = /^data:image\/(png|jpeg|gif|webp);base64,/
const NOT_BASE64 = /[^A-Za-z0-9+/]/

/**
 * A well-formed base64 image data URI: its head, then base64 in groups of four with at most two `=`
 * at its end. Searched for a wrong character rather than matched whole: linear over megabytes.
 */
function isImageDataUri(text: string): boolean {
  const head = IMAGE_DATA_URI_HEAD.exec(text)
  if (!head) return false
  const data = text.slice(head[0].length)
  if (data.length === 0 || data.length % 4 !== 0) return false
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0
  return !NOT_BASE64.test(data.slice(0, data.length - padding))
}

/** An input echoed in an issue, cut as pydantic's would be unreadable past it. */
const shortened = (text: string): string => (text.length > 64 ? `${text.slice(0, 64)}...` : text)
const TRUE_TEXTS = new Set(['1', 'on', 't', 'true', 'y', 'yes'])
const FALSE_TEXTS = new Set(['0', 'off', 'f', 'false', 'n', 'no'])

export interface IntegerBounds {
  ge?: number
  le?: number
}

/**
 * Collects the issues of one request. Each check returns the parsed value; when a check fails the
 * value returned is a placeholder and `failed` is true, so a handler checks `failed` before using
 * any of them.
 */
export class Validator {
  readonly issues: ValidationIssue[] = []

  get failed(): boolean {
    return this.issues.length > 0
  }

  get body(): { detail: ValidationIssue[] } {
    return { detail: this.issues }
  }

  private issue(type: string, loc: Array<string | number>, msg: string, input: unknown, ctx?: Json): void {
    this.issues.push(ctx ? { type, loc, msg, input, ctx } : { type, loc, msg, input })
  }

  // -- path and query parameters (text)

  /** An integer path parameter. */
  pathInteger(params: Record<string, string>, name: string): number {
    return this.integerText(params[name] ?? '', ['path', name], {})
  }

  /** An integer query parameter with a default. */
  queryInteger(
    query: Record<string, string>,
    name: string,
    fallback: number,
    bounds: IntegerBounds = {}
  ): number {
    const text = query[name]
    return text === undefined ? fallback : this.integerText(text, ['query', name], bounds)
  }

  /** An optional integer query parameter (null when absent). */
  queryOptionalInteger(query: Record<string, string>, name: string): number | null {
    const text = query[name]
    return text === undefined ? null : this.integerText(text, ['query', name], {})
  }

  queryBoolean(query: Record<string, string>, name: string, fallback: boolean): boolean {
    const text = query[name]
    if (text === undefined) return fallback
    const lower = text.trim().toLowerCase()
    if (TRUE_TEXTS.has(lower)) return true
    if (FALSE_TEXTS.has(lower)) return false
    this.issue(
      'bool_parsing',
      ['query', name],
      'Input should be a valid boolean, unable to interpret input',
      text
    )
    return fallback
  }

  /** An optional enum query parameter (null when absent). */
  queryEnum(query: Record<string, string>, name: string, values: readonly string[]): string | null {
    const text = query[name]
    if (text === undefined) return null
    if (values.includes(text)) return text
    this.issue('enum', ['query', name], `Input should be ${choices(values)}`, text, {
      expected: choices(values)
    })
    return null
  }

  private integerText(text: string, loc: Array<string | number>, bounds: IntegerBounds): number {
    if (!INTEGER_TEXT.test(text)) {
      this.issue(
        'int_parsing',
        loc,
        'Input should be a valid integer, unable to parse string as an integer',
        text
      )
      return Number.NaN
    }
    const value = Number(text)
    if (bounds.ge !== undefined && value < bounds.ge) {
      this.issue('greater_than_equal', loc, `Input should be greater than or equal to ${bounds.ge}`, text, {
        ge: bounds.ge
      })
    } else if (bounds.le !== undefined && value > bounds.le) {
      this.issue('less_than_equal', loc, `Input should be less than or equal to ${bounds.le}`, text, {
        le: bounds.le
      })
    }
    return value
  }

  // -- the JSON body

  /** The body as an object, or undefined (with an issue) when it is missing or not an object. */
  bodyObject(body: RequestBody): Json | undefined {
    switch (body.kind) {
      case 'none':
        this.issue('missing', ['body'], 'Field required', null)
        return undefined
      case 'invalid-json':
        this.issue(
          'json_invalid',
          ['body', body.position],
          'JSON decode error',
          {},
          { error: 'Expecting value' }
        )
        return undefined
      case 'other':
      case 'json': {
        const value = body.kind === 'json' ? body.value : body.text
        if (isObject(value)) return value
        this.issue(
          'model_attributes_type',
          ['body'],
          'Input should be a valid dictionary or object to extract fields from',
          value
        )
        return undefined
      }
    }
  }

  requiredString(body: Json, name: string): string {
    if (!(name in body)) {
      this.issue('missing', ['body', name], 'Field required', body)
      return ''
    }
    return this.string(body[name], ['body', name]) ?? ''
  }

  optionalString(body: Json, name: string): string | null {
    const value = body[name]
    return value === undefined || value === null ? null : this.string(value, ['body', name])
  }

  requiredInteger(body: Json, name: string): number {
    if (!(name in body)) {
      this.issue('missing', ['body', name], 'Field required', body)
      return Number.NaN
    }
    return this.integer(body[name], ['body', name])
  }

  optionalInteger(body: Json, name: string): number | null {
    const value = body[name]
    return value === undefined || value === null ? null : this.integer(value, ['body', name])
  }

  optionalObject(body: Json, name: string): Json | null {
    const value = body[name]
    if (value === undefined || value === null) return null
    if (isObject(value)) return value
    this.issue('dict_type', ['body', name], 'Input should be a valid dictionary', value)
    return null
  }

  optionalLiteral(body: Json, name: string, values: readonly string[]): string | null {
    const value = body[name]
    if (value === undefined || value === null) return null
    if (typeof value === 'string' && values.includes(value)) return value
    this.issue('literal_error', ['body', name], `Input should be ${choices(values)}`, value, {
      expected: choices(values)
    })
    return null
  }

  /**
   * Images: a list of base64 data URIs of images, or null. Not schema rules, and the reference shows
   * neither the checks nor their errors: the items are documented as base64 data URIs of images, and
   * the service takes 10 MiB of them in all (as the action counts them, the data URIs' characters).
   * Each is refused unless it is `data:image/<png|jpeg|gif|webp>;base64,` and well-formed base64, the
   * list unless within the cap, as pydantic words a validator's ValueError.
   */
  optionalImages(body: Json, name: string): string[] | null {
    const value = body[name]
    if (value === undefined || value === null) return null
    if (!Array.isArray(value)) {
      this.issue('list_type', ['body', name], 'Input should be a valid list', value)
      return null
    }
    const images: string[] = []
    let characters = 0
    value.forEach((item, index) => {
      const text = this.string(item, ['body', name, index])
      if (text === null) return
      characters += text.length
      if (!isImageDataUri(text)) {
        this.issue(
          'value_error',
          ['body', name, index],
          'Value error, each image must be a base64 data URI of a PNG, JPEG, GIF or WebP image (data:image/png;base64,...)',
          shortened(text),
          { error: {} }
        )
      }
      images.push(text)
    })
    if (characters > MAX_IMAGES_CHARACTERS) {
      this.issue(
        'value_error',
        ['body', name],
        `Value error, the images may take at most ${MAX_IMAGES_CHARACTERS / 1024 / 1024} MiB in all (${MAX_IMAGES_CHARACTERS} characters of data URIs), not ${characters}`,
        `${images.length} images`,
        { error: {} }
      )
    }
    return images
  }

  private string(value: unknown, loc: Array<string | number>): string | null {
    if (typeof value === 'string') return value
    this.issue('string_type', loc, 'Input should be a valid string', value)
    return null
  }

  private integer(value: unknown, loc: Array<string | number>): number {
    if (typeof value === 'number' && Number.isInteger(value)) return value
    if (typeof value === 'number' && Number.isFinite(value)) {
      this.issue(
        'int_from_float',
        loc,
        'Input should be a valid integer, got a number with a fractional part',
        value
      )
    } else {
      this.issue('int_type', loc, 'Input should be a valid integer', value)
    }
    return Number.NaN
  }
}
