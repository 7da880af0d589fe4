#!/bin/bash
# layering_test.sh - the include rules of drivers/: no verb folder includes
# a header of another verb folder (what verbs share lives in
# drivers/common, drivers/results, or a library folder), drivers/common
# includes nothing of drivers/ outside itself, and machine/ and history/
# only what verbs share.  Usage: layering_test.sh SRC
set -u
src=$1
# The verb folders under drivers/: the list of verbs, drivers/verbs.def.
verbs=$(sed -n 's/^KB_VERB(\([a-z_]*\)).*/\1/p' "$src/drivers/verbs.def")
# Known exceptions, "FOLDER:HEADER", each to go (none today).
allowed=""
fail=0
for v in $verbs; do
    [ -d "$src/drivers/$v" ] || continue
    for other in $verbs; do
        [ "$other" = "$v" ] && continue
        hits=$(grep -rn --include='*.[ch]' "^#include \"drivers/$other/" \
                   "$src/drivers/$v" | while IFS= read -r line; do
                   h=${line#*#include \"}; h=${h%%\"*}
                   case " $allowed " in *" $v:$h "*) ;; *) echo "$line" ;; esac
               done)
        if [ -n "$hits" ]; then
            echo "$hits"
            echo "FAIL: drivers/$v includes a header of the verb folder drivers/$other"
            fail=1
        fi
    done
done
if grep -rn --include='*.[ch]' '^#include "drivers/' "$src/drivers/common" |
        grep -v '#include "drivers/common/'; then
    echo "FAIL: drivers/common includes something of drivers/ above it"
    fail=1
fi
# The components beside drivers/ are below the verbs: of drivers/ they may
# use only what verbs share, "COMPONENT:FOLDERS" (iostage/ has its own
# rules: tests/iostage/iostage_layering_test.py).
for rule in "machine:common" "history:common results"; do
    component=${rule%%:*}
    allowed_dirs=$(printf '%s\n' ${rule#*:} | sed 's#.*#drivers/&/#' | paste -sd'|')
    if grep -rn --include='*.[ch]' '^#include "drivers/' "$src/$component" |
            grep -Ev "#include \"($allowed_dirs)"; then
        echo "FAIL: $component/ includes something of drivers/ other than ${rule#*:}"
        fail=1
    fi
done
exit $fail
