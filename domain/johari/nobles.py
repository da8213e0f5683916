"""Noble abilities (J-12, J-13, J-16): action costs with discounts, hiring costs and payment resources."""

from __future__ import annotations

from domain.johari.components import COLOURS, COMPONENTS
from domain.johari.state import Player, State, abilities, card

# J-16: the slot-discount Nobles and how much they take off actions played on their slot.
SLOT_NOBLE_DISCOUNT: dict[str, int] = {"slot_discount_1": 1, "slot_discount_2": 2}


def has(player: Player, ability: str) -> bool:
    """Whether the player has hired the Noble with this ability (J-16)."""
    return ability in abilities(player)


def is_slot_noble(noble: int) -> bool:
    """J-16: slot-discount Nobles are placed on a card slot when hired."""
    return COMPONENTS.nobles[noble].ability in SLOT_NOBLE_DISCOUNT


def noble_slot_discount(player: Player, slot: int) -> int:
    """J-16 slot_discount_1/2: the discount of the Nobles the player placed on ``slot``."""
    return sum(SLOT_NOBLE_DISCOUNT[COMPONENTS.nobles[n].ability] for n, s in player.noble_slots if s == slot)


def action_cost(player: Player, action: str, slot: int) -> int:
    """J-12: base cost minus the slot's discount (slot 3 free) minus Noble discounts, never below 0."""
    base = COMPONENTS.action_costs[action] or 0
    slot_discount = COMPONENTS.slot_discounts[slot - 1]
    if slot_discount is None:
        return 0
    cost = base - slot_discount - noble_slot_discount(player, slot)
    if action == "purchase" and has(player, "purchase_discount"):
        cost -= 2  # J-16 purchase_discount
    return max(0, cost)


def resolved_action(player: Player, slot: int) -> str:
    """J-13 Doppelganger: the action of the card in the previous slot; any other card is its own action."""
    played = player.slots[slot - 1] or ""
    if played == "doppelganger" and slot > 1:
        return player.slots[slot - 2] or ""
    return played


def hire_cost(player: Player, space: int) -> int:
    """J-4/J-16: the gems a Noble on ``space`` costs this player (hire_two_fewer: 2 fewer, never below 0)."""
    cost = COMPONENTS.noble_space_costs[space]
    if has(player, "hire_two_fewer"):
        cost -= 2
    return max(0, cost)


def gold_resources(player: Player) -> int:
    """J-16 hire_with_gold: track gold plus Gold Cards in the display, each gold counting as one gem."""
    if not has(player, "hire_with_gold"):
        return 0
    return player.gold + sum(card(c).gold for c in player.display if card(c).kind == "gold")


def colour_gems(player: Player, colour: str) -> int:
    """The gems shown on the player's display cards of one colour (J-13: gems, not cards)."""
    return sum(card(c).gems for c in player.display if card(c).colour == colour)


def payable_colours(player: Player, owed: int) -> list[str]:
    """J-13: the colours whose gems (plus gold with hire_with_gold) cover ``owed``."""
    extra = gold_resources(player)
    return [c for c in COLOURS if colour_gems(player, c) + extra >= owed]


def hireable(state: State, seat: int) -> list[int]:
    """J-13 Trade: the Nobles on the track this player can pay for now."""
    player = state.players[seat]
    out = []
    for index, noble in enumerate(state.noble_track):
        if noble is not None and payable_colours(player, hire_cost(player, index + 1)):
            out.append(noble)
    return out
