# tests/docs/docs.cmake - the documentation: every relative link in README.md,
# docs/, results/ and integrations/ resolves (docs_links), and the checker
# fails, naming file, line and link, on a fixture with broken links
# (docs_links_broken).
add_test(NAME docs_links
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/links_test.sh ${PROJECT_SOURCE_DIR})
add_test(NAME docs_links_broken
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/links_test.sh --broken)
set_tests_properties(docs_links docs_links_broken PROPERTIES TIMEOUT 30 LABELS docs)
# docs/cli.md is every verb's generated --help (docs_cli_reference), and
# the check fails when one differs (docs_cli_reference_stale: a copy with
# one line changed).
add_test(NAME docs_cli_reference
         COMMAND python3 ${CMAKE_CURRENT_LIST_DIR}/cli_reference.py
                 ${KB_TEST_KBENCH} --check ${PROJECT_SOURCE_DIR}/docs/cli.md)
add_test(NAME docs_cli_reference_stale
         COMMAND sh -c "sed 's/--reps N /--reps M /' \"$1\" > \"$2\" && exec python3 \"$3\" \"$4\" --check \"$2\""
                 sh ${PROJECT_SOURCE_DIR}/docs/cli.md
                 ${CMAKE_CURRENT_BINARY_DIR}/cli_stale.md
                 ${CMAKE_CURRENT_LIST_DIR}/cli_reference.py ${KB_TEST_KBENCH})
set_tests_properties(docs_cli_reference_stale PROPERTIES WILL_FAIL TRUE)
set_tests_properties(docs_cli_reference docs_cli_reference_stale PROPERTIES
                     TIMEOUT 30 LABELS docs)
