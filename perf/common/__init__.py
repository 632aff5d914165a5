"""What every benchmark shares: flags, processes and programs, endpoints, latency statistics,
host facts, result files, markdown tables and plots."""
