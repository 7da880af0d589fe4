#!/usr/bin/env bash
# dlio_keys_readme_test.sh - the table of DLIO keys in docs/io-stage.md
# (once the README's) is the table iostage/dlio/dlio_keys.conf holds, row for
# row, so the doc cannot drift.
#   dlio_keys_readme_test.sh CONF DOC      check (exit 1 with a diff)
#   dlio_keys_readme_test.sh --print CONF  print the table to paste
set -euo pipefail

header='| DLIO key | value | DLIO default | kbench | note |'

# The conf's rows as Markdown: key | value | default | kbench | note.
table() {
    echo "$header"
    echo '|---|---|---|---|---|'
    awk -F'|' '
        /^[ \t]*(#|$)/ { next }
        {
            for (i = 1; i <= 5; i++) gsub(/^[ \t]+|[ \t]+$/, "", $i)
            printf "| `%s` | %s | %s | %s | %s |\n", $1, $2, \
                   ($3 == "-" ? "—" : "`" $3 "`"), $4, $5
        }' "$1"
}

if [[ ${1:-} == --print ]]; then
    table "$2"
    exit 0
fi
conf=$1 doc=$2
# the document's rows: from the header line to the first line not a row
doc_rows=$(awk -v h="$header" '
    $0 == h { on = 1 }
    on && !/^\|/ { exit }
    on { print }' "$doc")
if [[ -z $doc_rows ]]; then
    echo "$doc: no table headed '$header'" >&2
    exit 1
fi
if ! diff <(table "$conf") <(echo "$doc_rows") >&2; then
    echo "$doc: its DLIO key table differs from $conf (< conf," \
         "> $doc); print it with: $0 --print $conf" >&2
    exit 1
fi
echo "$doc table: $(($(wc -l <<<"$doc_rows") - 2)) keys, as in $conf"
