# tests/drivers/common/common.cmake: what every verb shares, drivers/common/.
kb_add_test(test_svg_axes kb_common)
kb_add_test(test_options kb_common)
