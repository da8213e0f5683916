"""Read models fed from the global feed: the listing and histories, ratings, live streams, notifications."""
