"""Unit tests of Basari's decider, one ruling (B-n) at a time, in the rulebook's words."""
