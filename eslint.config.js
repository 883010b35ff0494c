import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import globals from 'globals'

export default tseslint.config(
  { ignores: ['dist/', 'build/', 'node_modules/', 'coverage/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': 'off'
    }
  },
  {
    // The client finds a call's options after a row's `length` of arguments: a default value or a
    // rest parameter would hide some of them (client.ts, serviceCalls).
    files: ['src/api/endpoints.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            'CallExpression[callee.name="row"] > ArrowFunctionExpression > :matches(AssignmentPattern, RestElement)',
          message: "A row's parameters have no default value and no rest: make it optional (`x?: T`) instead."
        }
      ]
    }
  },
  {
    // A function a reader takes in at once: longer ones are split into named steps.
    // emulator/ is not held to it yet: scenarios.ts's `success` is one long script.
    files: ['src/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 80 }] }
  }
)
