"""Recording a server's traffic to MCAP, replaying it and looking at it (needs the record extra)."""
