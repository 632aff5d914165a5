import sys

from perf.stress import main

sys.exit(main())
