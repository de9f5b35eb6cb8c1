"""``python -m pbm_emergo``: the same as the ``pbm-emergo`` console script."""

from pbm_emergo.cli import main

raise SystemExit(main())
