# tests/drivers/roofline/roofline.cmake - the roofline placement.
kb_add_test(test_placement kb_roofline)
