"""Running the server: the mail pipeline and its processes (:mod:`~pbm_emergo.ops.server`,
:mod:`~pbm_emergo.ops.workers`, :mod:`~pbm_emergo.ops.listeners`,
:mod:`~pbm_emergo.ops.robot_process`, with what they share in :mod:`~pbm_emergo.ops.processes`),
the database's figures on the metrics endpoint (:mod:`~pbm_emergo.ops.database_metrics`), and
the operator's ``admin stats`` and ``admin backup`` (:mod:`~pbm_emergo.ops.stats`,
:mod:`~pbm_emergo.ops.backup`). The command lines are in :mod:`pbm_emergo.cli`; the counted
metrics and the log format in :mod:`pbm_emergo.telemetry`."""
