import sys

from perf.record import main

sys.exit(main())
