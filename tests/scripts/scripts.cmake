# tests/scripts/scripts.cmake - scripts/flag-sweep.sh reads its config and
# prints the builds, runs and compares it would make (--dry-run: nothing
# is built, run or installed).
add_test(NAME flag_sweep_dry_run
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/flag_sweep_test.sh ${PROJECT_SOURCE_DIR})
# scripts/apt-mirror.sh: the Debian mirror from made-up apt sources.
add_test(NAME apt_mirror
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/apt_mirror_test.sh ${PROJECT_SOURCE_DIR})
# scripts/omp-vs-vendor.sh: conf checks, --dry-run's alternation, and the
# table built from fixed records (measures nothing).
add_test(NAME omp_vs_vendor_table
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/omp_vs_vendor_test.sh ${PROJECT_SOURCE_DIR})
