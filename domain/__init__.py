"""The pure game rules: no I/O, no clock, no randomness of its own (standard library and msgspec only).

``core.py`` holds the ``Game`` protocol the service relies on and ``GameSpec``, the one declaration of what
a game is; ``registry.py`` lists the games offered; ``decisions.py`` the decision table each game declares
(who owes which decision, drawing its pending, legal and decide's guard); ``counts.py`` the one form of
coloured-piece counts in a state (a tuple in the game's colour order, its arithmetic, and each game's
``PALETTE`` naming them on the wire); ``data/`` holds the component data (JSON).

Every game package has the same files with the same roles, so the three read side by side:

    __init__.py    GAME = GameSpec(...): the game's name, player counts, types and the functions below
    options.py     the options struct a game is created with
    components.py  the component data declared as msgspec structs with the rulebook's constraints, and the
                   game's fixed tables and constants (its colours and their ``PALETTE``)
    commands.py    the tagged union of commands (what a seat may send)
    events.py      the tagged union of events (what happened, every random outcome written in)
    state.py       State (the fold of the events), its Phase and Decision literals, small read helpers
    rules.py       setup, decide (the table's guard, then one ``match`` over the command types) and the
                   automatic steps it runs
    evolve.py      evolve (a dispatch table: event type -> one handler): applies an event, never validates
    legal.py       the decision table (``decisions.py``): which Decision a seat owes, each one's ruling,
                   answers and legal choices; pending and legal drawn from it
    view.py        view (what a seat or a spectator sees) and redact (events without their secrets)
    scoring.py     is_over, result, sheet (the score sheet drawn from a result) and the scoring rules

plus helpers that only one game has: ``basari/bids.py`` (comparing bids, B-8), ``johari/actions.py`` (resolving
an action card, J-13) and ``johari/nobles.py`` (Noble abilities, J-16). Where a game needs a table it declares
one: Basari's ``ACTIONS_BY_PLAYERS`` (components), each game's ``DECISIONS`` (legal.py). ``tournament/`` is the
tournament decider in the same layout where it applies (commands, events, state, rules, evolve, view, and
seating.py, standings.py; ``TOURNAMENT`` declared in its ``__init__.py``). ``bots/`` plays the games
through the same ``GAME`` surface.
"""
