import sys

from perf.vision import main

sys.exit(main())
