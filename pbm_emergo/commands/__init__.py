"""The mail commands: their words and grammar, one module per command, and a registry.

The command layer is grammar only: it reads a mail's commands once, on receipt
(:class:`~pbm_emergo.commands.text.CommandText`), decides which of their words may be shown
(:mod:`~pbm_emergo.commands.masking`), and turns each command line into a typed request
value (:mod:`pbm_emergo.game.requests`) through :data:`~pbm_emergo.commands.language.LANGUAGE`.
It reads no database and renders nothing: the shell (:mod:`pbm_emergo.app.dispatcher`) runs
the requests, and the mail layer (:mod:`pbm_emergo.mail.commands`) wires the two. Importing
this package stays light; the commands are loaded on first use.
"""
