import sys

from perf.soak import main

sys.exit(main())
