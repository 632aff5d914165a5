import sys

from perf.rtt import main

sys.exit(main())
