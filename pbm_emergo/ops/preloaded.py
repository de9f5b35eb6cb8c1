"""The last module the fork server of the helper processes imports (see
:func:`pbm_emergo.ops.processes.preload_helpers`): importing it sets aside from Python's
collector everything imported before, which every helper forked from there shares."""

from pbm_emergo.ops.processes import freeze_imports

freeze_imports()
