"""What an operator runs the server with: structured logs, backups, the figures of
``pbm-emergo admin stats`` (the metrics themselves: :mod:`pbm_emergo.telemetry.metrics`)."""
