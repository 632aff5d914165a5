import sys

from perf.syscalls import main

sys.exit(main())
