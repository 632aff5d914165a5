import sys

from coupler.cli import main

sys.exit(main())
