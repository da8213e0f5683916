"""Games: creating them, deciding and appending commands, loading and caching states, views, exports, clocks."""
