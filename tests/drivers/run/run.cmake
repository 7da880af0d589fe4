# tests/drivers/run/run.cmake - the `kbench run` verb (drivers/run/): the
# default backend set leaves out backends whose device is absent.
kb_add_test(test_default_backends kb_cli)
