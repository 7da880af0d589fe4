#!/usr/bin/env bash
# apt-mirror.sh - print the Debian archive URI this machine's apt already
# uses, so that scripts which fetch from Debian (fresh-debian-check.sh,
# stream-compare.sh) go where the machine's owner points apt (a local
# mirror, a proxy, a snapshot) and no file of kbench names a package
# server.  The first binary ("deb") source, in the order apt reads them
# (/etc/apt/sources.list, then /etc/apt/sources.list.d/*.list and
# *.sources by name), one-line or deb822, not disabled, whose suites
# include this system's codename (VERSION_CODENAME in /etc/os-release)
# itself: not NAME-security or NAME-updates, which live elsewhere or
# hold only part of the archive.  APT_ETC (default /etc/apt) and
# OS_RELEASE (default /etc/os-release) are read instead, for the tests.
# Exit code: 0 printed, 1 no such source, 2 no codename.
set -euo pipefail

etc=${APT_ETC:-/etc/apt}
os_release=${OS_RELEASE:-/etc/os-release}
codename=$(sed -n 's/^VERSION_CODENAME=["'\'']\{0,1\}\([^"'\'']*\).*/\1/p' \
    "$os_release" 2>/dev/null || true)
if [ -z "$codename" ]; then
    echo "apt-mirror.sh: no VERSION_CODENAME in $os_release" >&2
    exit 2
fi

files=()
[ -f "$etc/sources.list" ] && files+=("$etc/sources.list")
for f in "$etc"/sources.list.d/*; do
    case "$f" in *.list | *.sources) files+=("$f") ;; esac
done

for f in "${files[@]}"; do
    case "$f" in
        # one-line: deb [options] URI SUITE COMPONENT...
        *.list) uri=$(awk -v want="$codename" '
            { sub(/#.*/, ""); gsub(/\[[^]]*\]/, "") }
            $1 == "deb" && $3 == want { print $2; exit }' "$f") ;;
        # deb822: stanzas of Field: value, a blank line between them;
        # continuation lines start with a space.
        *.sources) uri=$(awk -v want="$codename" '
            function done_stanza(   i, n, s, u) {
                if (types ~ /(^| )deb( |$)/ && tolower(enabled) != "no") {
                    n = split(suites, s, " ")
                    split(uris, u, " ")
                    for (i = 1; i <= n; i++)
                        if (s[i] == want && u[1] != "") { found = u[1]; return }
                }
                types = uris = suites = enabled = ""; last = ""
            }
            /^#/ { next }
            /^[ \t]*$/ { done_stanza(); if (found != "") exit; next }
            /^[ \t]/ { v = $0; sub(/^[ \t]+/, "", v); add(last, v); next }
            { key = tolower($0); sub(/:.*/, "", key); v = $0; sub(/^[^:]*:[ \t]*/, "", v)
              last = key; add(key, v) }
            function add(k, v) {
                if (k == "types") types = types " " v
                else if (k == "uris") uris = uris " " v
                else if (k == "suites") suites = suites " " v
                else if (k == "enabled") enabled = v
            }
            END { if (found == "") done_stanza(); if (found != "") print found }' "$f") ;;
    esac
    if [ -n "$uri" ]; then
        echo "${uri%/}"
        exit 0
    fi
done
echo "apt-mirror.sh: no enabled deb source for $codename in $etc/sources.list" \
     "or $etc/sources.list.d/ (set KB_DEBIAN_MIRROR to a Debian archive URI)" >&2
exit 1
