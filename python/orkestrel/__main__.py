"""`python -m orkestrel`: the command line."""

from orkestrel.cli import main

raise SystemExit(main())
