"""Unit tests of Bazaar's decider, one ruling (Z-n) at a time."""
