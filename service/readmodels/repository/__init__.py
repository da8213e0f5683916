"""The read models' tables (docs/decisions/0006-read-models.md, docs/decisions/0008-sql-in-repositories.md):
``checkpoints`` the feed followers take turns on, the game projection's listing, histories, results and
ratings (``games``), the ratings as their endpoints read them (``ratings``), and the seats and invitations an
account's notifications read (``notifications``).

Table names are fixed here, never user input. Writes that belong to a checkpoint's transaction take that
transaction's connection; everything else takes a pooled connection of its own.
"""
