"""The test suite: one folder per package of pbm_emergo, shared helpers in tests/support."""
