import sys

from perf.step_profile import main

sys.exit(main())
