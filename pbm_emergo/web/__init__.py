"""The read-only web view of the server's boards (``pbm-emergo web``, ``serve --http-port``).

:mod:`pbm_emergo.web.app` is the ASGI application, :mod:`pbm_emergo.cli.web` the command
line and the process ``serve`` starts; :mod:`pbm_emergo.web.console` the operator's console
at ``/admin`` (sqladmin, behind a login), mounted only when it is configured.
Importing this package loads none of them.
"""
