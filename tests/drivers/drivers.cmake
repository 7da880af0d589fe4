# tests/drivers/drivers.cmake - the run engine and the kbench program
# (drivers/ at the top): statistics, the timing loop and its wait for
# idle threads, the .npy writer
# behind --dump, the writers, a deliberately wrong backend; the program end
# to end (cli_test.sh, one function per case: exit codes, list output, bad
# inputs, a small valid run, SIGINT); and drivers/' include rules.
kb_add_test(test_stats kb_driver)
kb_add_test(test_timing kb_driver)
kb_add_test(test_settle kb_driver)
kb_add_test(test_npy kb_driver)
kb_add_test(test_writers kb_driver)
kb_add_test(test_wrong_backend kb_cli)

# jsonl_check (tests/jsonl_check.c) parses a JSON Lines output; the
# scripts of other folders use it too.
add_executable(jsonl_check ${CMAKE_CURRENT_SOURCE_DIR}/jsonl_check.c)
target_link_libraries(jsonl_check PRIVATE kb_driver)

foreach(case IN ITEMS help unknown_verb list_models list_kernels_backends
        list_layers list_layers_bad run_bad_inputs run_valid run_settle run_llc
        sigint)
  add_test(NAME cli_${case}
           COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_test.sh ${case}
                   ${KB_TEST_KBENCH} ${KB_TEST_JSONL_CHECK})
endforeach()
set_tests_properties(cli_sigint PROPERTIES TIMEOUT 180)
if(CMAKE_CROSSCOMPILING_EMULATOR)   # 10-30 times slower under qemu
  set_tests_properties(cli_sigint PROPERTIES TIMEOUT 1200)
endif()

# drivers/' include rules (layering_test.sh).
add_test(NAME layering_verb_includes
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/layering_test.sh ${PROJECT_SOURCE_DIR})

# A verb that only reads results links no backend: every library reached
# from these targets' link libraries, followed through the tree, is
# checked at configure time against the backend libraries and the GPU
# runtimes.  A hit fails the configure step and names the path to it.
set(KB_RESULTS_ONLY kb_results kb_ceilings kb_roofline kb_report kb_compare kb_merge
                    kb_acceptance)
set(KB_BACKEND_LIBS kb_backends kb_machine kb_memory)
function(kb_forbidden_links target path out)
  set(found "")
  get_target_property(libs ${target} LINK_LIBRARIES)
  if(NOT libs)
    set(libs "")
  endif()
  get_target_property(ilibs ${target} INTERFACE_LINK_LIBRARIES)
  if(ilibs)
    list(APPEND libs ${ilibs})
  endif()
  list(REMOVE_DUPLICATES libs)
  foreach(lib IN LISTS libs)
    if(lib IN_LIST KB_BACKEND_LIBS OR lib MATCHES "^(CUDA|hip|roc)::|cudart|amdhip")
      list(APPEND found "${path} -> ${lib}")
    elseif(TARGET ${lib} AND NOT "${lib}" IN_LIST path)
      kb_forbidden_links(${lib} "${path};${lib}" sub)
      list(APPEND found ${sub})
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
foreach(t IN LISTS KB_RESULTS_ONLY)
  kb_forbidden_links(${t} ${t} bad)
  if(bad)
    message(SEND_ERROR "${t} links a backend library: ${bad}")
  endif()
endforeach()
