"""Command handling for every game: create a game, and decide and append one command of a seat.

Generic over ``domain.core.Game``: it never looks inside a game's commands or events. A command is
decided on the cached state without asking the store first (the append's optimistic concurrency is the
check); a refusal or a lost race is only answered after deciding again on the stored state.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

import msgspec
import structlog

from domain.bots import LEVELS
from domain.core import Command, Event, Game, GameConfig, Rejected, Rng, TimeControl, shown
from domain.names import looks_repeated, name_problem
from domain.resign import Adjudicate
from eventstore import (
    AppendResult,
    CommandRecord,
    ConcurrencyConflict,
    GameKeys,
    IdempotencyMismatch,
    RecordedEvent,
    StreamExists,
)
from service.games.clocks import Now, system_now, time_control, timed
from service.games.loading import FINISHED, ORGANIZER_KEY, GameLoader, LoadedGame
from service.games.queries import GameQueries
from service.games.schemas import CommandAccepted, CreateGame, EventOut, GameCreated, SeatToken
from service.integrity.audit import chain_key, encode_move
from service.integrity.seeds import SeedMix
from service.integrity.signing import SignedHead
from service.integrity.tokens import hash_token, new_seed, new_token, seed_commitment
from service.runtime import errors
from service.runtime.streams import RACE_RETRIES, Decision, Handled, Loaded, event_tag, handle, new_event

log = structlog.get_logger("service.games.service")

ENDS_PUBLIC = "ends_public"  # a stored answer's mark: its command ended the game, its events shown whole


def server_bot_levels(request: CreateGame) -> list[str | None]:
    """Each seat's server-bot level (``bot: "strong"``), None for a seat a client plays; 422 for an
    unknown level."""
    levels: list[str | None] = []
    for player in request.players:
        if isinstance(player.bot, str):
            if player.bot not in LEVELS:
                raise errors.RuleViolation(
                    "unknown_bot_level",
                    f"a bot seat's level is one of {shown(list(LEVELS))}, not {shown(player.bot)}",
                )
            levels.append(player.bot)
        else:
            levels.append(None)
    return levels


def seat_names(game: Game[Any], request: CreateGame, levels: list[str | None]) -> list[str]:
    """The players' names: as given, a bot seat's defaulting to its level and game ("strong-johari"), several
    bots of one level numbered ("strong-johari 1", "strong-johari 2"); 422 for a name that cannot be shown
    (domain/names.py) or one that looks like another (its skeleton)."""
    names = [
        (player.name or (f"{level}-{game.name}" if level else "")).strip()
        for player, level in zip(request.players, levels, strict=True)
    ]
    default = [
        player.name is None and level is not None
        for player, level in zip(request.players, levels, strict=True)
    ]
    names = [
        f"{n} {names[:i].count(n) + 1}" if default[i] and names.count(n) > 1 else n
        for i, n in enumerate(names)
    ]
    for name in names:
        if problem := name_problem(name):
            raise errors.RuleViolation("bad_player_name", problem)
    if looks_repeated(names):
        raise errors.RuleViolation(
            "duplicate_player_name", "player names must differ (and not look alike) within a game"
        )
    return names


def decodes(decoder: msgspec.json.Decoder[Any], body: Any) -> bool:
    """Whether a decoded JSON body reads as the decoder's type."""
    try:
        decoder.decode(msgspec.json.encode(body))
    except (msgspec.ValidationError, TypeError):
        return False
    return True


def seat_credentials(seats: int, token_hashes: list[str] | None) -> tuple[list[str | None], tuple[str, ...]]:
    """The seats' tokens for the answer and their hashes to keep: new tokens, or the hashes given (tournament
    and lobby games, whose answer then carries no tokens: nulls)."""
    if token_hashes is not None:
        return [None for _ in range(seats)], tuple(token_hashes)
    tokens: list[str | None] = [new_token() for _ in range(seats)]
    return tokens, tuple(hash_token(t) for t in tokens if t is not None)


BOTS_OWNER = "bots_owner"  # creation metadata of a game of server bots only: the account that created it


def creation_metadata(
    request: CreateGame, config: GameConfig, levels: list[str | None], commitment: str, tournament: str | None
) -> dict[str, Any]:
    """The stream's creation metadata: seats, options, seed commitment (to the seed, or to a commit-reveal
    seed's server half), bots, tournament and rating."""
    metadata: dict[str, Any] = {
        "players": list(config.players),
        "options": msgspec.to_builtins(config.options),
        "seed_commitment": commitment,
        "bots": [bool(player.bot) for player in request.players],
        "bot_levels": levels,
        "server_bots": any(levels),
        "tournament": tournament,
        "rated": request.rated,
        "chain_keyed": True,  # hashes keyed with the seed's chain key (service/integrity/audit.py chain_key)
        # a seed the client chose (never in a rated game) is shown as such: it may be guessable
        "seed_chosen": request.seed is not None and tournament is None,
    }
    if config.clock is not None:  # part of the set-up an audit re-derives
        metadata["clock"] = msgspec.to_builtins(config.clock)
    return metadata


def key_reused() -> errors.RuleViolation:
    """An Idempotency-Key sent again with another command."""
    return errors.RuleViolation(
        "idempotency_key_reused", "this Idempotency-Key was used with another command"
    )


def stored_answer(accepted: CommandAccepted, ends_public: bool) -> bytes:
    """The answer kept with a keyed command for its retries: as decided, marked if the command ended the
    game in public (its events, hashed only by the append, are then read back whole)."""
    if not ends_public:
        return msgspec.json.encode(accepted)
    return msgspec.json.encode({**msgspec.to_builtins(accepted), ENDS_PUBLIC: True})


def request_hash(seat: int, command: Command) -> str:
    """The identity of a command request for idempotency: the seat and the command's canonical JSON."""
    return hashlib.sha256(f"{seat}:".encode() + msgspec.json.encode(command)).hexdigest()


class CommandRequest(msgspec.Struct, frozen=True, kw_only=True):
    """One seat's command as ``execute`` decides it: the version it must find (``If-Match``) and, keyed with
    an Idempotency-Key, the id it is stored under and its request's fingerprint (``request_hash``)."""

    seat: int
    command: Command
    if_match: int | None = None
    command_id: str | None = None
    fingerprint: str = ""

    def record(self, accepted: CommandAccepted, ends_public: bool) -> CommandRecord | None:
        """What the store keeps of a keyed command with its events, for its retries (None unkeyed)."""
        if self.command_id is None:
            return None
        return CommandRecord(
            command_id=self.command_id,
            request_hash=self.fingerprint,
            response=stored_answer(accepted, ends_public),
        )


def check_decidable(game: LoadedGame, if_match: int | None) -> None:
    """A command is decided only on the ``If-Match`` version when one was given (412) and only while the
    game runs (409)."""
    if if_match is not None and if_match != game.version:
        raise errors.PreconditionFailed(
            "version_mismatch", f"the game is at version {game.version}, not {if_match}"
        )
    if game.finished:
        raise errors.Conflict("game_finished", "the game is over")


def lost_race(if_match: int | None) -> errors.ServiceError:
    """A command that kept losing the version race: 412 if it named its version (``If-Match``), else 409."""
    if if_match is not None:
        return errors.PreconditionFailed("version_mismatch", "another command moved the game on first")
    return errors.Conflict("too_much_contention", "the game kept moving; try again")


def log_rejected(game_id: str, seat: int, decided_on: LoadedGame, refusal: errors.ServiceError) -> None:
    """A refusal by the game's rules is logged once, as given: on the stored state."""
    if isinstance(refusal, errors.RuleViolation):
        log.info(
            "command_rejected",
            game_id=game_id,
            seat=seat,
            version=decided_on.version,
            code=refusal.code,
            rule=refusal.rule,
        )


class CommandDecider:
    """One command's decisions, as ``handle`` asks for them: on the cached state first, then on each state
    loaded after a refusal or a lost race; remembers the game the last decision saw."""

    def __init__(self, commands: GameCommands, request: CommandRequest, first: LoadedGame) -> None:
        self.commands = commands
        self.request = request
        self.keys = first.keys
        self.decided_on = first

    async def decide(self, stream: Loaded[Any]) -> Decision[Any, tuple[CommandAccepted, bool]]:
        """The command decided on ``stream`` (GameCommands.decision)."""
        game = stream if isinstance(stream, LoadedGame) else self.commands.loader.game_of(stream, self.keys)
        self.decided_on = game
        return await self.commands.decision(game, self.request)


class GameCommands:
    """Creates games and runs commands through the game's decider and the store."""

    def __init__(self, loader: GameLoader, queries: GameQueries, now: Now = system_now) -> None:
        self.loader = loader
        self.queries = queries
        self.now = now  # the clock stamped into timed games' commands (tests inject fake time)
        self._command_decoders = {
            name: msgspec.json.Decoder(game.command_type) for name, game in loader.games.items()
        }

    # ----------------------------------------------------------------- creation

    def game_named(self, name: str) -> Game[Any]:
        """The registered game called ``name`` (422 otherwise)."""
        game = self.loader.games.get(name)
        if game is None:
            raise errors.RuleViolation("unknown_game", f"no game called {shown(name)}; see /v1/catalog")
        return game

    def parse_options(self, game: Game[Any], options: dict[str, Any] | None) -> msgspec.Struct:
        """The game's options struct from the request's ``options`` object (422 on an unknown or bad option)."""
        try:
            return msgspec.convert(options or {}, game.options_type)
        except msgspec.ValidationError as exc:
            raise errors.RuleViolation.invalid("invalid_options", "options", exc) from None

    def configure(
        self,
        game: Game[Any],
        names: list[str],
        options: dict[str, Any] | None,
        clock: TimeControl | None = None,
    ) -> GameConfig:
        """The game's configuration for these seats, options and clock (422 for a count or option it
        refuses)."""
        config = GameConfig(players=tuple(names), options=self.parse_options(game, options), clock=clock)
        try:
            game.validate_config(config)
        except Rejected as refusal:
            raise errors.RuleViolation(refusal.code, refusal.detail, rule=refusal.rule) from None
        return config

    async def create(
        self,
        request: CreateGame,
        tournament: str | None = None,
        token_hashes: list[str] | None = None,
        game_id: str | None = None,
        accounts: list[str | None] | None = None,
        duplicate_round: tuple[str, int] | None = None,
        mix: SeedMix | None = None,
        owner: str | None = None,
    ) -> GameCreated:
        """Create a game: validate, derive the opening events from the seed, store keys and stream.

        ``token_hashes`` (tournament and lobby games): the seats' stored token hashes ("" for a seat an
        account holds); the answer's tokens are then empty. ``game_id`` (a lobby game starting): the id
        it was listed under; if its keys or stream exist already (a start cut short), they are kept.
        ``accounts``: the account id holding each seat (None: none), kept in the creation metadata.
        ``rated`` is taken as given: the lobby (service/lobby/lobby.py) decides which games may be rated.
        ``duplicate_round``: (round key, number of tables) of a duplicate tournament round; the game keeps
        its secrets until every table of the round has finished (``sealed``).
        ``mix`` (a lobby game starting): the seed is the server's committed half mixed with the seats'
        entropies (service/integrity/seeds.py); the published commitment is the one to the server's half.
        ``owner`` (a game of server bots only): the creator's account id, kept as ``bots_owner`` so that its
        running bot-only games can be counted (service/lobby/lobby.py).
        """
        game = self.game_named(request.game)
        levels = server_bot_levels(request)
        names = seat_names(game, request, levels)
        clock = time_control(request.clock, self.now(), rated=request.rated)
        config = self.configure(game, names, request.options, clock)
        seed = mix.seed if mix is not None else request.seed if request.seed is not None else new_seed()
        if not seed or len(seed) > 200:
            raise errors.Malformed("bad_seed", "a seed is 1-200 characters")
        seat_tokens, hashes = seat_credentials(len(names), token_hashes)
        existing = None if game_id is None else await self.loader.keys.get(game_id)
        game_id = game_id or str(uuid.uuid4())
        if existing is None:
            await self.loader.keys.save(GameKeys(game_id=game_id, seed=seed, token_hashes=hashes))
        else:
            seed = existing.seed
        opening = game.setup(config, Rng(seed, "setup"))
        commitment = seed_commitment(mix.server_seed if mix is not None else seed)
        metadata = creation_metadata(request, config, levels, commitment, tournament)
        if accounts is not None:
            metadata["accounts"] = accounts
        if mix is not None:  # the seed is SeedMix(server half revealed at the end, these entropies).seed
            metadata["seed_entropies"] = list(mix.entropies)
        if duplicate_round is not None:
            metadata["duplicate_group"], metadata["duplicate_tables"] = duplicate_round
        if owner is not None:
            metadata[BOTS_OWNER] = owner
        try:
            result = await self.loader.store.create_stream(
                game_id,
                game.name,
                [new_event(e) for e in opening],
                metadata=metadata,
                chain_key=chain_key(seed),
            )
            version = result.version
        except StreamExists:
            if existing is None:
                raise
            version = (await self.loader.info(game_id)).version
        log.info("game_created", game_id=game_id, game=game.name, players=len(names), version=version)
        return GameCreated(
            game_id=game_id,
            game=game.name,
            version=version,
            seats=[
                SeatToken(seat=i, name=n, token=t)
                for i, (n, t) in enumerate(zip(names, seat_tokens, strict=True))
            ],
            seed_commitment=commitment,
        )

    # ----------------------------------------------------------------- commands

    def parse_command(self, game: Game[Any], body: Any) -> Command:
        """The game's command from a decoded JSON body: 400 if it is no command of any game, 422
        ``wrong_game_command`` if it is another game's (a well-formed body of POST /commands, whose schema
        is every game's commands, that this game has no such command for)."""
        # Through JSON and a kept decoder: msgspec.convert works out the game's union of command types on
        # each call (7 us for a Bazaar command, against 0.3 us this way; the errors read the same).
        try:
            command: Command = self._command_decoders[game.name].decode(msgspec.json.encode(body))
        except (msgspec.ValidationError, TypeError) as exc:
            for other, decoder in self._command_decoders.items():
                if other != game.name and decodes(decoder, body):
                    raise errors.RuleViolation(
                        "wrong_game_command", f"a {other} command, and this game is {game.name}"
                    ) from None
            raise errors.Malformed.invalid("malformed_command", f"not a {game.name} command", exc) from None
        if isinstance(command, Adjudicate):  # the service's own, for a tournament organizer
            raise errors.Malformed(
                "service_command", "adjudicate is the service's own command, for an organizer"
            )
        return command

    async def execute(
        self,
        game_id: str,
        seat: int,
        body: Any,
        if_match: int | None = None,
        idempotency_key: str | None = None,
        command: Command | None = None,
    ) -> CommandAccepted:
        """Decide and append one command from ``seat``; retried on a lost race unless ``If-Match`` was given.

        The first decision uses the cached state (no round trip); the append's version check catches a stale
        one. Any refusal is given only on the stored state, and for a keyed command only after checking
        that it was not accepted before (a retry is answered with its first answer). ``command``: one the
        service sends itself (a timeout), in place of a client's ``body``.
        """
        cached = self.loader.cached(game_id)
        loaded = cached or await self.loader.load(game_id)
        request = self.request(loaded.game, seat, body, if_match, idempotency_key, command)
        decider = CommandDecider(self, request, loaded)
        try:
            handled = await handle(
                self.loader.streams,
                game_id,
                decider.decide,
                retries=RACE_RETRIES if if_match is None else 0,
                first=loaded,
                first_stored=cached is None,
            )
        except errors.ServiceError as refusal:  # refused on the stored state
            earlier = await self._earlier_answer(game_id, request)
            if earlier is not None:
                return earlier
            log_rejected(game_id, seat, decider.decided_on, refusal)
            raise
        except ConcurrencyConflict:
            raise lost_race(if_match) from None
        except IdempotencyMismatch:
            raise key_reused() from None
        return await self._accepted(game_id, request, decider.decided_on, handled)

    def request(
        self,
        game: Game[Any],
        seat: int,
        body: Any,
        if_match: int | None,
        idempotency_key: str | None,
        command: Command | None,
    ) -> CommandRequest:
        """What ``execute`` decides: the service's own ``command``, else the client's ``body`` parsed, whose
        Idempotency-Key may not be one of the service's own (400); keyed, its id and fingerprint."""
        if command is None:
            if idempotency_key is not None and idempotency_key.startswith(ORGANIZER_KEY):
                raise errors.Malformed(
                    "bad_idempotency_key",
                    f"an Idempotency-Key starting {ORGANIZER_KEY!r} is the service's own",
                )
            command = self.parse_command(game, body)
        if not idempotency_key:
            return CommandRequest(seat=seat, command=command, if_match=if_match)
        return CommandRequest(
            seat=seat,
            command=command,
            if_match=if_match,
            command_id=f"{seat}:{idempotency_key}",
            fingerprint=request_hash(seat, command),
        )

    async def decision(
        self, game: LoadedGame, request: CommandRequest
    ) -> Decision[Any, tuple[CommandAccepted, bool]]:
        """The command decided on ``game``: its events, the answer and whether it ends the game in public,
        with what the store keeps beside them (the command record, the status, the move, the chain link)."""
        check_decidable(game, request.if_match)
        decided = timed(game.state, request.command, self.now())  # a timed game's: stamped
        accepted, new_state, appended = self._decide(game, request.seat, decided)
        finished_now = bool(game.game.is_over(new_state))
        ends_public = finished_now and await self._ends_public(game)
        return Decision(
            events=appended,
            state=new_state,
            answer=(accepted, ends_public),
            command=request.record(accepted, ends_public),
            status=FINISHED if finished_now else None,
            # the move as decided (a timed game's stamped): re-decided by every audit (service/integrity/audit.py)
            cause=encode_move(request.seat, decided),
            link=game.link,
        )

    async def _ends_public(self, game: LoadedGame) -> bool:
        """Whether the command that ends ``game`` is answered with its events whole: yes, unless its
        duplicate round keeps its secrets. Decided before the append, so that the stored answer says so and
        a retry answers the same (two last tables finishing at once both answer redacted)."""
        return not await self.loader.sealed(game.info, finishing=True)

    async def _earlier_answer(self, game_id: str, request: CommandRequest) -> CommandAccepted | None:
        """For a keyed command refused on the stored state: the first answer if the command was accepted
        before (its retry), else None (the refusal stands)."""
        if request.command_id is None:
            return None
        earlier = await self.loader.store.find_command(game_id, request.command_id)
        if earlier is None:
            return None
        return await self._replay(game_id, earlier, request.fingerprint, request.seat)

    async def _accepted(
        self,
        game_id: str,
        request: CommandRequest,
        decided_on: LoadedGame,
        handled: Handled[Any, tuple[CommandAccepted, bool]],
    ) -> CommandAccepted:
        """The answer to an appended command, logged once; a keyed command the store had already (its
        retry) is answered with its first answer instead."""
        result = handled.result
        if result.replayed is not None:
            return await self._replay(game_id, result.replayed, request.fingerprint, request.seat)
        log.info(
            "command_accepted",
            game_id=game_id,
            seat=request.seat,
            command=request.command.__struct_config__.tag,
            version=result.version,
        )
        accepted, ends_public = handled.decision.answer
        finished = handled.decision.status == FINISHED
        return await self._answer(
            decided_on, request.seat, accepted, handled.after, result, finished, ends_public
        )

    async def _answer(
        self,
        loaded: LoadedGame,
        seat: int,
        accepted: CommandAccepted,
        after: Loaded[Any],
        result: AppendResult,
        finished: bool,
        ends_public: bool,
    ) -> CommandAccepted:
        """Answer with the signed head of the game after the append (``after``, remembered by the repository);
        the events whole as stored if the game just ended in public (``ends_public``), else as the seat may
        see them."""
        signed = self.queries.signed_head(loaded.game_id, result.version, after.head, loaded.info, finished)
        if ends_public:
            return self._whole(loaded.game, accepted.version, result.events, seat, signed)
        return accepted if signed is None else msgspec.structs.replace(accepted, head=signed)

    def _whole(
        self, game: Game[Any], version: int, records: list[RecordedEvent], seat: int, head: SignedHead | None
    ) -> CommandAccepted:
        """The answer of the command that ended a game in public: its events whole as stored."""
        events = [self.queries.envelope(game, r, seat, public=True) for r in records]
        return CommandAccepted(version=version, events=events, head=head)

    def _decide(
        self, loaded: LoadedGame, seat: int, command: Command
    ) -> tuple[CommandAccepted, Any, list[Event]]:
        """Run the decider; the answer (with events as the seat may see them) is built before the append."""
        game = loaded.game
        rng = Rng(loaded.keys.seed, f"v{loaded.version}")
        try:
            appended = game.decide(loaded.state, seat, command, rng)
        except Rejected as refusal:
            raise errors.RuleViolation(refusal.code, refusal.detail, rule=refusal.rule) from None
        state = loaded.state
        for event in appended:
            state = game.evolve(state, event)
        now = self.now()
        events = [
            EventOut(
                version=loaded.version + i + 1,
                game=game.name,
                type=event_tag(e),
                recorded_at=now,
                data=game.redact(e, seat),
            )
            for i, e in enumerate(appended)
        ]
        return CommandAccepted(version=loaded.version + len(appended), events=events), state, appended

    async def _replay(
        self, game_id: str, record: CommandRecord, fingerprint: str, seat: int
    ) -> CommandAccepted:
        """The first answer to an idempotent retry (422 if the key came with another command), with the head
        it produced signed again (the answer was stored before its events were hashed); the command that
        ended the game in public is answered with its events whole as stored, as it was the first time."""
        if record.request_hash != fingerprint:
            raise key_reused()
        info = await self.loader.info(game_id)
        stored = msgspec.json.decode(record.response)
        ended_public = stored.pop(ENDS_PUBLIC, False)
        for event in stored.get("events", ()):
            event.setdefault("game", info.category)  # answers stored before events named their game
        answer = msgspec.convert(stored, CommandAccepted)
        if ended_public:
            loaded = await self.loader.load(game_id)
            records = await self.loader.store.read_stream(
                game_id, after=answer.version - len(answer.events), limit=len(answer.events)
            )
            final = records[-1].hash if records else loaded.head
            signed = self.queries.signed_head(game_id, answer.version, final, info, True)
            return self._whole(loaded.game, answer.version, records, seat, signed)
        if answer.head is not None or self.queries.signer is None:
            return answer
        last = await self.loader.store.read_stream(game_id, after=answer.version - 1, limit=1)
        if not last:
            return answer
        head = self.queries.signed_head(game_id, answer.version, last[0].hash, info, info.status == FINISHED)
        return msgspec.structs.replace(answer, head=head)
