"""Tournament rules: creation, table sizes, seating, points and tie-breaks, flow (domain/tournament)."""
