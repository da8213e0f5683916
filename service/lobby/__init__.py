"""The lobby: games waiting for accounts to fill their seats, started when the last one is taken."""
