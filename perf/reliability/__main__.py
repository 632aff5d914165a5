import sys

from perf.reliability import main

sys.exit(main())
