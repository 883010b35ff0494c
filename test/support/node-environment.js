import { AsyncLocalStorage } from 'node:async_hooks'
import NodeEnvironment from 'jest-environment-node'

/**
 * jest's node environment, plus one clean-up. jest-circus loads a fresh copy of its adapter for each
 * test file, and each copy runs the file's tests inside an AsyncLocalStorage of its own that is never
 * disabled. Node (before 24) copies the store of every enabled AsyncLocalStorage onto every promise
 * and async resource made after it: the 40th file of a worker pays 40 copies a promise, and a worker
 * that runs 50 files spends most of its time there. So the storages a file entered are disabled when
 * the file is over (a later `run` enables one again).
 */

const entered = new Set()
for (const method of ['run', 'enterWith']) {
  const original = AsyncLocalStorage.prototype[method]
  AsyncLocalStorage.prototype[method] = function (...args) {
    entered.add(this)
    return original.apply(this, args)
  }
}

const Base = NodeEnvironment.default ?? NodeEnvironment

export default class TestEnvironment extends Base {
  async teardown() {
    await super.teardown()
    for (const storage of entered) storage.disable()
    entered.clear()
  }
}
