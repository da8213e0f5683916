"""Background work of every process: server bots, timeouts, claims across hosts, and offline simulation."""
