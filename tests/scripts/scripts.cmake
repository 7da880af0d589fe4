# tests/scripts/scripts.cmake - scripts/flag-sweep.sh reads its config and
# prints the builds, runs and compares it would make (--dry-run: nothing
# is built, run or installed).
add_test(NAME flag_sweep_dry_run
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/flag_sweep_test.sh ${PROJECT_SOURCE_DIR})
