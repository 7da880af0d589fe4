# tests/backends/onednn/onednn.cmake - what only the onednn backend needs:
# oneDNN's fpmath attribute and SKIPPED reasons.  (Its numerics run in
# tests/backends/backends.cmake.)
if("onednn" IN_LIST KB_BACKEND_NAMES)
  kb_add_test(test_onednn kb_backends)
endif()
