import sys

from perf.view import main

sys.exit(main())
