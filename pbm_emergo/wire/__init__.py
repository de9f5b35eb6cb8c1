"""Mail as it travels, below every layer that reads or writes it: the ``email`` policies,
the address rules, the marks our replies carry. Standard library (and ``idna``) only, so
the replies' builder (``views``) and the mail layer (``mail``) share them."""
