#!/usr/bin/env bash
# links_test.sh - every relative Markdown link of the documentation resolves
# (tests/docs/links_check.py says what is read and how anchors are made).
#   links_test.sh ROOT      check README.md, docs/, results/ and integrations/
#                           under ROOT: exit 0, or 1 naming FILE:LINE: LINK
#   links_test.sh --broken  check the checker: on the fixture broken/, whose
#                           links are all good but seven, it must exit 1 and
#                           name exactly those seven (broken.expected)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

if [[ ${1:-} != --broken ]]; then
    [[ $# -eq 1 ]] || { sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
    exec python3 "$here/links_check.py" "$1"
fi

status=0
report=$(python3 "$here/links_check.py" "$here/broken" 2>&1 >/dev/null) || status=$?
if [[ $status -ne 1 ]]; then
    echo "links_check.py exited $status on the fixture, not 1:" >&2
    echo "$report" >&2
    exit 1
fi
# the per-link lines, without the count line at the end
if ! diff "$here/broken.expected" <(grep -v '^links_check.py: ' <<<"$report") >&2; then
    echo "links_check.py did not name exactly the fixture's broken links" \
         "(< expected, > reported)" >&2
    exit 1
fi
echo "links_check.py exits 1 on the fixture and names its $(wc -l <"$here/broken.expected") broken links, and only them"
