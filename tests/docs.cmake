# tests/docs.cmake - the documentation: every relative link in README.md,
# docs/, results/ and integrations/ resolves (docs_links), and the checker
# fails, naming file, line and link, on a fixture with broken links
# (docs_links_broken).
add_test(NAME docs_links
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/docs/links_test.sh ${PROJECT_SOURCE_DIR})
add_test(NAME docs_links_broken
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/docs/links_test.sh --broken)
set_tests_properties(docs_links docs_links_broken PROPERTIES TIMEOUT 30 LABELS docs)
