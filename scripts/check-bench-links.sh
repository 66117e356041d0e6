#!/usr/bin/env bash
# Checks that every bench/results/... path the docs and bench scripts mention
# exists, so pruning result files cannot break a link. A path cut short by a
# shell expansion in the text (rss-$(date ...), selftest-{1,2,3}.json) is
# checked as a prefix. Usage: scripts/check-bench-links.sh
set -euo pipefail
cd "$(dirname "$0")/.."

missing=0
while IFS=: read -r file path; do
  path=${path%.}                       # a path ending a sentence
  case "$path" in
    */) [ -d "$path" ] && continue ;;
    *-) compgen -G "$path*" >/dev/null && continue ;;
    *) [ -e "$path" ] && continue ;;
  esac
  echo "$file: $path does not exist"
  missing=1
done < <(grep -oE 'bench/results/[A-Za-z0-9._/-]*' README.md docs/*.md docs/adr/*.md bench/*.sh | sort -u)
exit $missing
