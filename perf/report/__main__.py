import sys

from perf.report import main

sys.exit(main())
