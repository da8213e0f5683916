"""What makes a game provable: secrets and seeds, signed heads, the signing key, the audit and the export format."""
