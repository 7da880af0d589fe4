# tests/layering.cmake - drivers/' include rules (layering_test.sh).
add_test(NAME layering_verb_includes
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/layering_test.sh ${PROJECT_SOURCE_DIR})

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
