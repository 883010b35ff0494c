#!/usr/bin/env bash
# Mutation check: applies each mutant of src/ below, one at a time, runs the tests that should catch
# it (jest's global setup rebuilds dist/ from the mutated source first), reports KILLED or SURVIVED,
# and restores the file. `npm run mutants` runs them all; `npm run mutants -- --full` runs the whole
# npm test for each instead of the relevant files; `npm run mutants -- mask entry` runs those only.
# A mutant whose pattern no longer matches the source reports NOT APPLIED: update its pattern.
set -uo pipefail
cd "$(dirname "$0")/.."

full=false
only=()
for arg in "$@"; do
  if [ "$arg" = --full ]; then full=true; else only+=("$arg"); fi
done

# Each mutant: its name, the file, a perl substitution (run with -0777: the whole file at once), and
# the test files that should catch it.
names=() files=() substitutions=() tests=()
mutant() { names+=("$1"); files+=("$2"); substitutions+=("$3"); tests+=("$4"); }
mutant idempotency src/agent-run/send-once.ts \
  's/const found = await findRunByKey\(api, key, deadline\)/const found = undefined as AgentRun | undefined/' \
  'test/flows/run-action.test.ts test/flows/step.test.ts'
mutant first-write src/report/tracking-comment.ts \
  's/async open\(\): Promise<void> \{\n    await this\.writes\.flush\(\)\n  \}/async open(): Promise<void> {}/' \
  'test/flows/run-action.test.ts test/flows/comments.test.ts'
mutant status-case src/agent-run/status.ts \
  's/CLASSES\[status\.trim\(\)\.toUpperCase\(\)\]/CLASSES[status.trim()]/' \
  'test/unit/unit.test.ts'
mutant log-cursor src/agent-run/watcher.ts \
  's/this\.reads\.logs\.read\(this\.state\.cursor, LOG_PAGE_SIZE, options\)/this.reads.logs.read(0, LOG_PAGE_SIZE, options)/' \
  'test/flows/deadlines.test.ts'
mutant mask src/action.ts \
  's/\n  secrets\.forEach\(secret => runner\.mask\(secret\)\)//' \
  'test/flows/run-action.test.ts test/flows/deadlines.test.ts'
mutant ambiguous src/api/retry.ts \
  's/if \(write && exchange\.sent\)/if (write \&\& !write)/' \
  'test/flows/run-action.test.ts'
mutant github-blind src/github/request-policy.ts \
  's/if \(neverResentBlind\(options\) && answerLost\(failure\)\)/if (false)/' \
  'test/flows/comments.test.ts'
mutant entry src/index.ts \
  's/void run\(/void Promise.resolve(/' \
  'test/bundle/step-protocol.test.ts'


backup=""
target=""
restore() {
  if [ -n "$backup" ]; then
    cp -p "$backup" "$target"
    touch "$target" # newer than the mutated bundle: the next npm test rebuilds dist/
    rm -f "$backup"
    backup=""
  fi
}
trap 'restore; exit 130' INT TERM
trap restore EXIT

results=()
for i in "${!names[@]}"; do
  name="${names[$i]}" file="${files[$i]}" substitution="${substitutions[$i]}"
  if [ ${#only[@]} -gt 0 ] && [[ ! " ${only[*]} " == *" $name "* ]]; then continue; fi
  target="$file"
  backup="$(mktemp)"
  cp -p "$file" "$backup"
  perl -0777 -pi -e "$substitution" "$file"
  if cmp -s "$file" "$backup"; then
    results+=("$(printf '%-12s NOT APPLIED (the pattern no longer matches %s)' "$name" "$file")")
    restore
    continue
  fi
  printf '\n=== mutant %s: %s\n' "$name" "$file"
  git --no-pager diff --no-color --unified=0 -- "$file" | grep -E '^[-+]([^-+]|$)' || true
  if $full; then
    command=(npm test --silent)
  else
    # shellcheck disable=SC2206 # a list of paths
    command=(npm test --silent -- ${tests[$i]})
  fi
  if "${command[@]}" >"$backup.log" 2>&1; then
    verdict=SURVIVED
  else
    verdict=KILLED
  fi
  failed="$(grep -E '^\s+✕|^\s+● ' "$backup.log" | head -3 | sed -E 's/^ +/    /')"
  results+=("$(printf '%-12s %-8s (%s)' "$name" "$verdict" "${command[*]}")${failed:+$'\n'$failed}")
  rm -f "$backup.log"
  restore
done

# The last mutant's bundle is gone: dist/ is rebuilt from the restored source.
npm run --silent bundle >/dev/null

printf '\n=== mutants\n'
printf '%s\n' "${results[@]}"
! printf '%s\n' "${results[@]}" | grep -qE '^\S+ +(SURVIVED|NOT APPLIED)'
