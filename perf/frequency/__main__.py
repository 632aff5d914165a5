import sys

from perf.frequency import main

sys.exit(main())
