# tests/dnn_shape.cmake - the cudnn and miopen backends' host-side
# descriptors (backends/gpu/dnn_shape.c), which need no DNN library:
# plain C in kb_backends, checked on every build.
kb_add_test(test_dnn_shape kb_backends)
