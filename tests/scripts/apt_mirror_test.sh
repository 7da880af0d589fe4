#!/usr/bin/env bash
# apt_mirror_test.sh SRC - scripts/apt-mirror.sh finds the Debian archive
# in made-up apt configurations: one-line and deb822 sources, options in
# brackets, comments, disabled stanzas, continuation lines, the security
# and updates suites passed over, and none found (exit 1, saying so).
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'ID=debian\nVERSION_CODENAME="trixie"\n' >"$tmp/os-release"
fail=0

# expect WANT_OUTPUT WANT_RC: run the script on $tmp/apt.
expect() {
    local out rc=0
    out=$(APT_ETC=$tmp/apt OS_RELEASE=$tmp/os-release \
        bash "$src/scripts/apt-mirror.sh" 2>"$tmp/err") || rc=$?
    if [ "$out" != "$1" ] || [ "$rc" != "$2" ]; then
        echo "FAIL ($case): got '$out' exit $rc, want '$1' exit $2" >&2
        cat "$tmp/err" >&2
        fail=1
    fi
}
new_apt() { rm -rf "$tmp/apt"; mkdir -p "$tmp/apt/sources.list.d"; }

case="one-line, options and trailing slash"
new_apt
printf '%s\n' '# deb http://commented/debian trixie main' \
    'deb-src http://source-only/debian trixie main' \
    'deb http://security.example/debian-security trixie-security main' \
    'deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian/ trixie main' \
    >"$tmp/apt/sources.list"
expect http://mirror.example/debian 0

case="deb822: disabled and security stanzas skipped, continuation lines"
new_apt
printf '%s\n' 'Types: deb' 'URIs: http://x/debian-security' \
    'Suites: trixie-security' '' \
    'Types: deb' 'Enabled: no' 'URIs: http://x/disabled' 'Suites: trixie' '' \
    '# a comment' 'Types: deb-src deb' 'URIs: http://x/debian' \
    '  http://x/second' 'Suites: trixie-updates' '  trixie' 'Components: main' \
    >"$tmp/apt/sources.list.d/debian.sources"
expect http://x/debian 0

case="sources.list before sources.list.d"
printf 'deb http://first/debian trixie main\n' >"$tmp/apt/sources.list"
expect http://first/debian 0

case="another suite only"
new_apt
printf 'deb http://x/debian bookworm main\n' >"$tmp/apt/sources.list.d/old.list"
expect "" 1
grep -q "no enabled deb source for trixie" "$tmp/err" ||
    { echo "FAIL ($case): no reason given" >&2; fail=1; }

[ "$fail" = 0 ] && echo "apt_mirror_test: PASSED"
exit "$fail"
