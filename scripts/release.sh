#!/usr/bin/env bash
# Release checks, then the git commands of a release (CONTRIBUTING.md, "Release"):
#
#   bash scripts/release.sh v1.2.3          checks, then prints the commands
#   bash scripts/release.sh v1.2.3 --push   checks, then tags and pushes
#
# A release is the tag vX.Y.Z on a commit of main whose dist/ is the build of its source, and the
# major tag vX moved to it (workflows use `@v1`). The checks: the tag's form, a clean work tree on
# main, package.json's version, a tag not already taken, no step back from the latest release of
# the same major, and dist/ equal to a fresh `npm run bundle`.
set -euo pipefail
cd "$(dirname "$0")/.."

fail() {
  echo "release: $*" >&2
  exit 1
}

tag="" push=false
for arg in "$@"; do
  case "$arg" in
    --push) push=true ;;
    v*) tag="$arg" ;;
    *) fail "unknown argument '$arg' (usage: bash scripts/release.sh vX.Y.Z [--push])" ;;
  esac
done
[[ "$tag" =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]] ||
  fail "the tag must be vX.Y.Z (three numbers), got '${tag:-nothing}' (usage: bash scripts/release.sh vX.Y.Z [--push])"
major="v${BASH_REMATCH[1]}"
version="${tag#v}"

[ -z "$(git status --porcelain)" ] || fail "the work tree has changes: commit or stash them first"
branch="$(git rev-parse --abbrev-ref HEAD)"
[ "$branch" = main ] || fail "releases are tagged on main; this is '$branch'"
package_version="$(node -p 'require("./package.json").version')"
[ "$package_version" = "$version" ] ||
  fail "package.json's version is $package_version: run 'npm version $version --no-git-tag-version', commit, and run this again"
if git rev-parse -q --verify "refs/tags/$tag" >/dev/null; then fail "the tag $tag exists already"; fi

# The latest release of this major, if any: the new one must come after it.
latest="$(git tag --list "$major.*" | grep -E '^v[0-9]+\.[0-9]+\.[0-9]+$' | sort -V | tail -n 1 || true)"
if [ -n "$latest" ] && [ "$(printf '%s\n%s\n' "$latest" "$tag" | sort -V | tail -n 1)" != "$tag" ]; then
  fail "$tag does not come after $latest, the latest release of $major"
fi

echo "Rebuilding dist/ to compare it with the committed one (npm run bundle)..."
npm run --silent bundle >/dev/null
if [ -n "$(git status --porcelain -- dist/)" ]; then
  git status --porcelain -- dist/ >&2
  fail "dist/ is not the build of the committed source: commit the rebuilt dist/ and run this again"
fi

commit="$(git rev-parse --short HEAD)"
commands=(
  "git tag --annotate $tag --message '$tag'"
  "git tag --force --annotate $major --message '$major: $tag'"
  "git push origin $tag"
  "git push --force origin $major"
)
echo "Checked: $tag on main at $commit (${latest:+after $latest, }package.json $version, dist/ current)."
if $push; then
  for command in "${commands[@]}"; do
    echo "+ $command"
    eval "$command"
  done
  echo "Done. Write the release notes: gh release create $tag --generate-notes (or on GitHub's Releases page)."
else
  echo "The commands of the release (or run this again with --push):"
  printf '  %s\n' "${commands[@]}"
  echo "  gh release create $tag --generate-notes   # the release notes, on GitHub"
fi
