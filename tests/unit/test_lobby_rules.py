"""The lobby's seat rules (domain/lobby.py), without a database: creation's seats, joining, leaving,
declining and each refusal's code and kind."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from domain import lobby as rules
from domain.lobby import (
    ACCOUNT,
    BOT,
    CANCELLED,
    HOTSEAT,
    INVITE,
    OPEN,
    STARTED,
    WAITING,
    Holders,
    Refused,
    Seat,
)
from service.games.schemas import PlayerIn


@dataclass(frozen=True)
class Member:
    account_id: str
    name: str
    bot_game: str | None = None


ME = Member("a-me", "Ada")
GUEST = Member("a-guest", "Grace")
BOT_JOHARI = Member("a-bot", "strong-johari", bot_game="johari")


def refused(error: pytest.ExceptionInfo[Refused]) -> tuple[str, str]:
    return error.value.answer, error.value.code


# ----------------------------------------------------------------------------------------------- creation


@pytest.mark.parametrize(
    ("player", "kind"),
    [
        (PlayerIn(name="Bo"), HOTSEAT),
        (PlayerIn(name="Bo", bot=True), HOTSEAT),
        (PlayerIn(bot="strong"), BOT),
        (PlayerIn(name="Bo", bot="strong"), BOT),
        (PlayerIn(account="me"), ACCOUNT),
        (PlayerIn(invite="Grace"), INVITE),
        (PlayerIn(open=True), OPEN),
    ],
)
def test_a_seat_is_of_exactly_the_kind_it_names(player: PlayerIn, kind: str) -> None:
    assert rules.seat_kind(player) == kind


@pytest.mark.parametrize(
    ("player", "detail"),
    [
        (PlayerIn(), "each seat is exactly one of"),
        (PlayerIn(account="me", open=True), "each seat is exactly one of"),
        (PlayerIn(account="Grace"), 'a seat\'s "account" can only be "me"'),
        (PlayerIn(open=True, bot=True), '"bot" marks a hot-seat seat only'),
    ],
)
def test_a_seat_of_no_kind_or_several_is_refused(player: PlayerIn, detail: str) -> None:
    with pytest.raises(Refused) as error:
        rules.seat_kind(player)
    assert refused(error) == ("rule", "bad_seat")
    assert error.value.detail.startswith(detail)


def test_entropy_is_at_most_128_characters() -> None:
    rules.check_entropy("x" * 128)
    rules.check_entropy(None)
    with pytest.raises(Refused) as error:
        rules.check_entropy("x" * 129)
    assert refused(error) == ("malformed", "bad_entropy")


@pytest.mark.parametrize(
    ("players", "seed_chosen", "code"),
    [
        ([PlayerIn(account="me"), PlayerIn(name="Bo")], False, "rated_needs_accounts"),
        ([PlayerIn(bot="strong"), PlayerIn(bot="random")], False, "rated_needs_accounts"),
        ([PlayerIn(account="me"), PlayerIn(open=True)], True, "rated_seed_chosen"),
        ([PlayerIn(account="me")], False, "rated_needs_opponents"),
        ([PlayerIn(account="me"), PlayerIn(bot="strong")], False, None),
        ([PlayerIn(invite="Grace"), PlayerIn(open=True)], False, None),
    ],
)
def test_a_game_is_rated_only_between_accounts_on_the_servers_seed(
    players: list[PlayerIn], seed_chosen: bool, code: str | None
) -> None:
    refusal = rules.rated_refusal(players, seed_chosen)
    assert (None if refusal is None else refusal.code) == code


def test_a_rated_request_that_may_not_be_rated_is_refused_after_its_seats_kinds() -> None:
    with pytest.raises(Refused) as error:
        rules.request_kinds([PlayerIn(account="me")], None, rated=True, seed_chosen=False)
    assert refused(error) == ("rule", "rated_needs_opponents")
    with pytest.raises(Refused) as error:
        rules.request_kinds([PlayerIn(), PlayerIn(account="me")], None, rated=True, seed_chosen=False)
    assert refused(error) == ("rule", "bad_seat")


def test_entropy_needs_the_creators_account_seat() -> None:
    assert rules.request_kinds([PlayerIn(account="me")], "abc", rated=False, seed_chosen=False) == [ACCOUNT]
    with pytest.raises(Refused) as error:
        rules.request_kinds(
            [PlayerIn(name="A"), PlayerIn(bot="strong")], "abc", rated=False, seed_chosen=False
        )
    assert refused(error) == ("rule", "bad_entropy")
    with pytest.raises(Refused) as error:
        holders([PlayerIn(open=True), PlayerIn(name="Bo")], entropy="abc")
    assert refused(error) == ("rule", "bad_entropy")


def holders(
    players: list[PlayerIn],
    entropy: str | None = None,
    seed: str | None = None,
    bots: dict[int, Member] | None = None,
    invitees: dict[int, Member | None] | None = None,
) -> Holders:
    kinds = [rules.seat_kind(player) for player in players]
    return rules.seat_holders(players, kinds, "johari", entropy, seed, bots or {}, invitees or {})


@pytest.mark.parametrize("seed", ["", "s" * 201])
def test_a_chosen_seed_is_1_to_200_characters(seed: str) -> None:
    with pytest.raises(Refused) as error:
        holders([PlayerIn(account="me"), PlayerIn(open=True)], seed=seed)
    assert refused(error) == ("malformed", "bad_seed")
    assert error.value.detail == "a seed is 1-200 characters"
    holders([PlayerIn(account="me"), PlayerIn(open=True)], seed="s" * 200)


def test_the_creator_holds_one_seat_at_most() -> None:
    with pytest.raises(Refused) as error:
        holders([PlayerIn(account="me"), PlayerIn(account="me")])
    assert refused(error) == ("rule", "duplicate_account")


def test_a_server_bot_beside_accounts_plays_under_its_accounts_name() -> None:
    with pytest.raises(Refused) as error:
        holders([PlayerIn(account="me"), PlayerIn(name="Robo", bot="strong")], bots={1: BOT_JOHARI})
    assert refused(error) == ("rule", "bad_seat")
    seated = holders([PlayerIn(account="me"), PlayerIn(bot="strong")], bots={1: BOT_JOHARI})
    assert seated == Holders(invited={}, bots={1: BOT_JOHARI})


def test_an_invitation_names_an_account_and_a_server_bot_accepts_for_its_own_game_only() -> None:
    with pytest.raises(Refused) as error:
        holders([PlayerIn(account="me"), PlayerIn(invite="nobody")], invitees={1: None})
    assert refused(error) == ("rule", "unknown_account")
    assert error.value.detail == 'no account called "nobody"'
    elsewhere = Member("a-b2", "strong-basari", bot_game="basari")
    with pytest.raises(Refused) as error:
        holders([PlayerIn(account="me"), PlayerIn(invite="strong-basari")], invitees={1: elsewhere})
    assert refused(error) == ("rule", "bot_plays_another_game")
    assert error.value.detail == "strong-basari plays basari only"
    seated = holders(
        [PlayerIn(account="me"), PlayerIn(invite="Grace"), PlayerIn(invite="strong-johari")],
        invitees={1: GUEST, 2: BOT_JOHARI},
    )
    assert seated == Holders(invited={1: GUEST}, bots={2: BOT_JOHARI})


def plan(players: list[PlayerIn], seated: Holders, entropy: str | None = None) -> rules.SeatPlan:
    kinds = [rules.seat_kind(player) for player in players]
    return rules.seats_to_write(players, kinds, ME, entropy, seated)


def test_an_account_holds_or_is_invited_to_one_seat_at_most() -> None:
    with pytest.raises(Refused) as error:
        plan([PlayerIn(account="me"), PlayerIn(invite="Ada")], Holders(invited={1: ME}))
    assert refused(error) == ("rule", "duplicate_account")
    with pytest.raises(Refused) as error:
        plan(
            [PlayerIn(open=True), PlayerIn(bot="strong"), PlayerIn(bot="strong")],
            Holders(bots={1: BOT_JOHARI, 2: BOT_JOHARI}),
        )
    assert refused(error) == ("rule", "duplicate_account")


def test_player_names_are_valid_and_do_not_look_alike() -> None:
    with pytest.raises(Refused) as error:
        plan([PlayerIn(account="me"), PlayerIn(name="")], Holders())
    assert refused(error) == ("rule", "bad_player_name")
    with pytest.raises(Refused) as error:
        plan([PlayerIn(account="me"), PlayerIn(name="ADA")], Holders())
    assert refused(error) == ("rule", "duplicate_player_name")


def test_the_plan_writes_each_seat_as_its_kind_and_a_game_with_a_seat_to_fill_waits() -> None:
    players = [
        PlayerIn(account="me"),
        PlayerIn(name=" Bo "),
        PlayerIn(bot="strong"),
        PlayerIn(invite="Grace"),
        PlayerIn(open=True),
    ]
    written = plan(players, Holders(invited={3: GUEST}, bots={2: BOT_JOHARI}), entropy="e")
    assert [(s.seat, s.kind, s.holder, s.invited, s.name, s.entropy, s.joined) for s in written.seats] == [
        (0, ACCOUNT, ME, None, None, "e", True),
        (1, HOTSEAT, None, None, "Bo", None, True),
        (2, ACCOUNT, BOT_JOHARI, None, None, None, True),
        (3, INVITE, None, GUEST, None, None, False),
        (4, OPEN, None, None, None, None, False),
    ]
    assert not written.full


def test_a_game_whose_seats_are_all_taken_at_once_is_full() -> None:
    written = plan([PlayerIn(account="me"), PlayerIn(bot="strong")], Holders(bots={1: BOT_JOHARI}))
    assert written.full


# ----------------------------------------------------------------------------------------------- seats


def test_seats_change_only_while_the_game_waits() -> None:
    rules.must_wait(WAITING)
    for status, code in (
        (CANCELLED, "game_cancelled"),
        (STARTED, "game_started"),
        ("starting", "game_started"),
    ):
        with pytest.raises(Refused) as error:
            rules.must_wait(status)
        assert refused(error) == ("conflict", code)


def test_only_the_creator_seats_a_bot_and_it_brings_no_entropy() -> None:
    rules.seating_a_bot(ME.account_id, ME.account_id, None)
    with pytest.raises(Refused) as error:
        rules.seating_a_bot(ME.account_id, GUEST.account_id, None)
    assert refused(error) == ("forbidden", "not_creator")
    with pytest.raises(Refused) as error:
        rules.seating_a_bot(ME.account_id, ME.account_id, "e")
    assert refused(error) == ("rule", "bad_entropy")


SEATS = [
    Seat(seat=0, kind=ACCOUNT, account_id=ME.account_id),
    Seat(seat=1, kind=OPEN),
    Seat(seat=2, kind=INVITE, invited_id=GUEST.account_id),
    Seat(seat=3, kind=HOTSEAT, name="Bo"),
]


def test_a_join_takes_the_wanted_seat_else_the_reserved_one_else_the_first_open_one() -> None:
    assert rules.seat_to_take(SEATS, GUEST.account_id, GUEST.name, None) == rules.Taken(2, fills=False)
    assert rules.seat_to_take(SEATS, GUEST.account_id, GUEST.name, 1) == rules.Taken(1, fills=False)
    assert rules.seat_to_take(SEATS, "a-other", "Other", None) == rules.Taken(1, fills=False)


def test_the_join_filling_the_last_free_seat_fills_the_game() -> None:
    last = [SEATS[0], Seat(seat=1, kind=ACCOUNT, account_id="a-other"), SEATS[2], SEATS[3]]
    assert rules.seat_to_take(last, GUEST.account_id, GUEST.name, None) == rules.Taken(2, fills=True)


@pytest.mark.parametrize(
    ("account_id", "name", "wanted", "answer", "code"),
    [
        (ME.account_id, ME.name, None, "conflict", "already_seated"),
        ("a-other", "B0", None, "conflict", "name_in_game"),
        ("a-other", "Other", 7, "rule", "no_such_seat"),
        ("a-other", "Other", 2, "forbidden", "seat_reserved"),
        ("a-other", "Other", 0, "conflict", "seat_taken"),
        ("a-other", "Other", 3, "conflict", "seat_taken"),
    ],
)
def test_a_join_is_refused_a_seat_it_may_not_take(
    account_id: str, name: str, wanted: int | None, answer: str, code: str
) -> None:
    with pytest.raises(Refused) as error:
        rules.seat_to_take(SEATS, account_id, name, wanted)
    assert refused(error) == (answer, code)


def test_a_join_finds_no_free_seat_when_every_one_is_taken_or_reserved_for_another() -> None:
    with pytest.raises(Refused) as error:
        rules.seat_to_take([SEATS[0], SEATS[2]], "a-other", "Other", None)
    assert refused(error) == ("conflict", "no_free_seat")
    assert error.value.detail == "every seat is taken or reserved"


def test_the_creator_leaving_cancels_anyone_else_gives_a_seat_back() -> None:
    assert rules.leaving(WAITING, ME.account_id, ME.account_id)
    assert not rules.leaving(WAITING, ME.account_id, GUEST.account_id)
    with pytest.raises(Refused) as error:
        rules.leaving(CANCELLED, ME.account_id, GUEST.account_id)
    assert refused(error) == ("conflict", "game_cancelled")
    assert rules.given_back(2) == 2
    with pytest.raises(Refused) as error:
        rules.given_back(None)
    assert refused(error) == ("conflict", "not_seated")


def test_only_an_invited_account_declines_a_waiting_game() -> None:
    rules.declining(WAITING, 2)
    with pytest.raises(Refused) as error:
        rules.declining(WAITING, None)
    assert refused(error) == ("conflict", "not_invited")
    with pytest.raises(Refused) as error:
        rules.declining(STARTED, 2)
    assert refused(error) == ("conflict", "game_started")
