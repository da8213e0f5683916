"""A person at the game page: decides what to do from their seat's view, finds that decision among the
page's controls, clicks it, and waits for the page to move on. And the other seats, played over the API
while the person clicks."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
import msgspec
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import TimeoutError as PlaywrightTimeout

from domain.basari.bids import beating_bids
from domain.basari.components import Gems

READY = """() => ((document.querySelector('#controls .choice') || document.querySelector('#board .target'))
    && !document.getElementById('decision').hidden)
  || document.getElementById('status').textContent.includes('over')"""

# Where the command is on the page: a highlighted target on the board (a card, store, noble, equation side or
# ware; with several commands there, it offers them in a menu), a button of its own, or an option of a list
# box and the box's Send button; last, a control of the folded "every legal command" list (`where` says which).
# The elements themselves, not their positions: the page redraws its controls whenever the game moves (the
# other seat's move, over the stream), and a position found before a redraw can name another command by the
# time of the click (it once clicked "resign"). A redrawn control is a new node, so a stale one is detached.
LOCATE = """(wanted) => {
  for (const target of document.querySelectorAll('#board .target')) {
    const commands = JSON.parse(target.dataset.commands).map((c) => JSON.stringify(c));
    const several = commands.length > 1;
    if (commands.includes(wanted)) return {button: target, select: null, option: -1, where: 'board', several};
  }
  for (const folded of [false, true]) {
    const shown = (node) => Boolean(node.closest('details')) === folded;
    const own = [...document.querySelectorAll('#controls button.choice')]
      .find((b) => b.dataset.command === wanted && shown(b));
    const where = folded ? 'folded' : 'buttons';
    if (own) return {button: own, select: null, option: -1, where, several: false};
    for (const select of [...document.querySelectorAll('#controls select')].filter(shown)) {
      const option = [...select.options].findIndex((o) => o.dataset.command === wanted);
      if (option >= 0) return {button: select.nextElementSibling, select, option, where, several: false};
    }
  }
  return {button: null, select: null, option: -1, where: null, several: false};
}"""


# The words of every control a decision offers: the board's targets with the visible buttons and list
# options, and apart from them the folded list of every legal command (which repeats some of them).
LABELS = """() => {
  const words = (nodes) => nodes.map((n) => n.getAttribute('aria-label') || n.textContent.trim());
  const inFallback = (n) => Boolean(n.closest('details.fallback'));
  const controls = [...document.querySelectorAll('#controls button.choice, #controls option')];
  return {
    shown: words([...document.querySelectorAll('#board .target'), ...controls.filter((n) => !inFallback(n))]),
    folded: words(controls.filter(inFallback)),
  };
}"""


def assert_plain_distinct_labels(labels: dict[str, list[str]]) -> None:
    """No two controls of a decision read alike, and none shows a raw field ("null", "wild_card")."""
    for group in labels.values():
        assert len(set(group)) == len(group), f"controls that read alike: {sorted(group)}"
        assert not [w for w in group if "null" in w or "_" in w or "undefined" in w], group


BID_ORDER = ("red", "yellow", "green", "blue")


async def compose_bid(page: Any, gems: dict[str, int]) -> str:
    """Compose ``gems`` with the bid composer's steppers (one click per gem); returns the page's verdict
    (``data-beats``: "true", "false", or "null" when only the server can tell)."""
    for colour in BID_ORDER:
        have = int(await page.input_value(f"#bid-{colour}"))
        step = 1 if gems.get(colour, 0) > have else -1
        for _ in range(abs(gems.get(colour, 0) - have)):
            await page.click(f'#bid-composer button.step[data-colour="{colour}"][data-step="{step}"]')
    wanted = ",".join(str(gems.get(colour, 0)) for colour in BID_ORDER)
    await page.wait_for_function(
        """(wanted) => ['red', 'yellow', 'green', 'blue']
          .map((c) => document.getElementById('bid-' + c).value).join(',') === wanted""",
        arg=wanted,
    )
    return str(await page.get_attribute("#bid-verdict", "data-beats"))


def weakest_beating_bid(detail: dict[str, Any]) -> dict[str, int]:
    """The weakest bid the seat's gems can make that beats the bid on the table (B-8, the domain's own
    enumeration: the page has only the step-wise list then)."""
    talks = detail["view"]["negotiation"]
    current = None if talks["current_bid"] is None else Gems(**talks["current_bid"]).counts()
    owned = Gems(**detail["view"]["players"][detail["you"]]["gems"]).counts()
    bids = beating_bids(owned, current, limit=10**6)
    assert bids, "a seat offered bid steps can beat the bid"
    weakest: dict[str, int] = msgspec.to_builtins(Gems.of(bids[0]))
    return weakest


# The page has drawn a version other than ``version`` and has no command on its way (game.js marks #game
# aria-busy until a command's answer is drawn; a click before that is not taken, as a person sees).
MOVED_ON = """(version) => {
  const game = document.getElementById('game');
  return game.dataset.version !== version && !game.hasAttribute('aria-busy');
}"""


async def moved_on(page: Any, version: str | None) -> None:
    """Wait until the page has drawn another version than ``version`` and takes clicks again."""
    await page.wait_for_function(MOVED_ON, arg=version)


# What the page shows when it did not move on: its version, whether a command is on its way, its status line,
# its alert line and the latest event its live stream told (the log's first line).
PAGE_STATE = """() => ({version: document.getElementById('game').dataset.version,
  busy: document.getElementById('game').hasAttribute('aria-busy'),
  status: document.getElementById('status').textContent,
  error: document.getElementById('command-error').textContent,
  told: document.querySelector('#log li')?.textContent})"""


async def answered(page: Any, version: str | None) -> None:
    """Wait until the page moved on from ``version`` after a click (or showed its refusal) and takes clicks
    again; the command must not be refused. A page that does not is told with what it shows."""
    try:
        await page.wait_for_function(
            "(version) => !document.getElementById('game').hasAttribute('aria-busy')"
            " && (document.getElementById('game').dataset.version !== version"
            " || document.getElementById('command-error').textContent !== '')",
            arg=version,
        )
    except PlaywrightTimeout:
        shown = await page.evaluate(PAGE_STATE)
        raise AssertionError(
            f"the page did not move on from version {version} after a click: {shown}"
        ) from None
    error = await page.text_content("#command-error")
    assert not error, f"the page's command was refused: {error}"


def missing(stones: dict[str, int], cost: dict[str, int]) -> int:
    """How many stones ``stones`` lack to pay ``cost``."""
    return sum(max(0, n - stones.get(colour, 0)) for colour, n in cost.items())


def after_trade(stones: dict[str, int], equation: dict[str, Any], give: str) -> dict[str, int]:
    """The stones after trading ``give``'s side of an equation for the other side."""
    take = "right" if give == "left" else "left"
    out = dict(stones)
    for colour, n in equation[give].items():
        out[colour] = out.get(colour, 0) - n
    for colour, n in equation[take].items():
        out[colour] = out.get(colour, 0) + n
    return out


def bazaar_choice(view: dict[str, Any], seat: int, legal: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Z-7/Z-8, greedily: buy when possible, else a trade that brings a displayed ware closer, else roll or
    end the turn (so a game ends in a few dozen turns instead of hundreds)."""
    by_type = {c["type"]: c for c in legal}
    if "buy" in by_type:
        return by_type["buy"]
    wares = [s["displayed"]["stones"] for s in view["stalls"] if s["displayed"]] or [{}]
    stones = view["players"][seat]["stones"]
    best = min(missing(stones, w) for w in wares)
    trades = [
        (min(missing(after_trade(stones, view["exchange"][c["equation"]], c["give"]), w) for w in wares), c)
        for c in legal
        if c["type"] == "trade"
    ]
    better = sorted((gap, json.dumps(c)) for gap, c in trades if gap < best)
    if better:
        picked: dict[str, Any] = json.loads(better[0][1])
        return picked
    for kind in ("roll", "choose_colour", "end_turn"):
        if kind in by_type:
            return by_type[kind]
    return None


def choose(game: str, detail: dict[str, Any], chooser: random.Random) -> dict[str, Any]:
    """The person's decision: Bazaar's greedy buyer, a random legal entry otherwise."""
    legal: list[dict[str, Any]] = [c for c in detail["legal"] if c["type"] != "resign"]  # never resign
    if game == "bazaar":
        picked = bazaar_choice(detail["view"], detail["you"], legal)
        if picked is not None:
            return picked
    return chooser.choice(legal)


async def click_until_over(
    page: Any,
    base: str,
    game_id: str,
    token: str,
    game: str,
    chooser: random.Random,
    shots: Any = None,
    record: dict[str, int] | None = None,
) -> int:
    """Play the page's seat by clicking until the game is over; returns the number of clicks.
    ``shots(clicks)`` is awaited after each click (for screenshots); ``record`` counts the clicks by where
    the command was found and its type ("board:buy"): on the "board", among the "buttons", in the
    "composer" (Basari's bids) or in the "folded" list of every legal command."""
    clicks = 0
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while True:
            await page.wait_for_function(READY, timeout=30_000)
            if "over" in (await page.text_content("#status") or ""):
                return clicks
            version = await page.get_attribute("#game", "data-version")
            detail = (
                await http.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})
            ).json()
            if str(detail["version"]) != version or not [c for c in detail["legal"] if c["type"] != "resign"]:
                await asyncio.sleep(0.05)  # the page has not caught up yet: look again
                continue
            assert_plain_distinct_labels(await page.evaluate(LABELS))
            choice = choose(game, detail, chooser)
            if choice["type"] == "bid_colour":  # too many beating bids to list whole: a person composes one
                choice = {"type": "bid", "gems": weakest_beating_bid(detail)}
            if choice["type"] == "bid":  # a bid is composed with the steppers, not picked from a list
                listed = any(c["type"] == "bid" for c in detail["legal"])
                verdict = await compose_bid(page, choice["gems"])
                assert verdict == ("true" if listed else "null"), f"a beating bid is shown as {verdict}"
                await page.click("#send-bid")
                await answered(page, version)
                clicks += 1
                if record is not None:
                    record["composer:bid"] = record.get("composer:bid", 0) + 1
                continue
            wanted = json.dumps(choice, separators=(",", ":"))
            found = await page.evaluate_handle(LOCATE, wanted)
            button = (await found.get_property("button")).as_element()
            select = (await found.get_property("select")).as_element()
            if button is None:  # redrawn in between: look again
                continue
            where = await (await found.get_property("where")).json_value()
            try:
                folded = await button.evaluate_handle("(b) => b.closest('details:not([open])')")
                if folded.as_element() is not None:  # a command of the folded legal list: unfold it first
                    await (await folded.as_element().query_selector("summary")).click()
                if select is not None:
                    await select.select_option(index=await (await found.get_property("option")).json_value())
                await button.click()
                if await (await found.get_property("several")).json_value():  # the target offers its commands
                    await page.click(f"#target-menu button[data-command='{wanted}']")
            except PlaywrightError as stale:
                if "not attached" not in str(stale):
                    raise
                continue  # redrawn between finding and clicking: look again
            await answered(page, version)
            clicks += 1
            if record is not None:
                record[f"{where}:{choice['type']}"] = record.get(f"{where}:{choice['type']}", 0) + 1
            if shots:
                await shots(clicks)


async def play_other_seats(base: str, game_id: str, tokens: dict[int, str], game: str, seed: str) -> int:
    """Play ``tokens``' seats over the API (the same choices as the person's) until the game ends."""
    chooser = random.Random(seed)
    moves = 0
    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        while True:
            spectator = (await http.get(f"/v1/games/{game_id}")).json()
            if spectator["status"] == "finished":
                return moves
            mine = [p["seat"] for p in spectator["pending"] if p["seat"] in tokens]
            if not mine:
                await asyncio.sleep(0.05)
                continue
            auth = {"Authorization": f"Bearer {tokens[mine[0]]}"}
            detail = (await http.get(f"/v1/games/{game_id}", headers=auth)).json()
            if not [c for c in detail["legal"] if c["type"] != "resign"]:
                continue
            answer = await http.post(
                f"/v1/games/{game_id}/commands", json=choose(game, detail, chooser), headers=auth
            )
            assert answer.status_code in (200, 409, 422), answer.text  # a lost race is decided again
            moves += 1
