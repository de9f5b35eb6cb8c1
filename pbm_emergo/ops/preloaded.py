"""The last module the fork server of the helper processes imports (see
:func:`pbm_emergo.ops.processes.preload_helpers`): importing it loads the language detector
of the inbox workers' replies (100 MB, which they share from here instead of loading a copy
each), then sets aside from Python's collector everything loaded before, which every helper
forked from there shares."""

from pbm_emergo.ops.processes import freeze_imports
from pbm_emergo.views.text_language import load_model

load_model()
freeze_imports()
