"""What the server reports about itself: Prometheus metrics and structured log events.

Every layer reports into it (the listener counts SMTP answers, the worker processed mails,
the sender deliveries), so it sits below them all and imports none of them: no command
table, no database. What needs those is given to it: the caller passes the ``command``
label, and the server hands the endpoint its collector of database figures
(:mod:`pbm_emergo.ops.database_metrics`)."""
