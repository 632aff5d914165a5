import sys

from perf.gym import main

sys.exit(main())
