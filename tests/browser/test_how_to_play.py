"""A player finds how to play where they look: each rule page opens with a short "how to play" and a picture
of the table (served by the service itself, fitting a 390 px phone), then links the full rules below it."""

from __future__ import annotations

from typing import Any

import pytest

from tests.browser.conftest import Visit, screenshot

pytestmark = [pytest.mark.e2e, pytest.mark.db]

RULE_HEADINGS = {
    "basari": ("Basari — the rules", "B-1"),
    "bazaar": ("Bazaar (Sid Sackson) — the rules", "Z-1"),
    "johari": ("Johari — the rules", "J-1"),
}

# the picture has loaded and been decoded (an image that failed to load has no natural width)
PICTURE_SHOWN = (
    "() => { const i = document.querySelector('#how-to-play img');"
    " return i !== null && i.complete && i.naturalWidth > 0; }"
)
# the full rules start at the top of the window (after following the link to them)
RULES_AT_TOP = "() => Math.abs(document.querySelector('#the-full-rules').getBoundingClientRect().top) < 10"


async def test_each_rule_page_opens_with_how_to_play_and_a_picture_of_the_table(visit: Visit) -> None:
    page = visit.page
    pictures: dict[str, Any] = {}  # the answers for the pictures, by file name

    def record(answer: Any) -> None:
        """Keep the answer of a request for a how-to picture."""
        if "/static/howto/" in answer.url:
            pictures[answer.url.rsplit("/", 1)[-1]] = answer

    page.on("response", record)
    await page.goto("/")
    for game, (rules_heading, first_ruling) in RULE_HEADINGS.items():
        link = page.locator(f'nav.rules-links a[href="/rules/{game}"]')
        assert await link.count() == 1, game
        await page.set_viewport_size({"width": 1300, "height": 1000})
        await page.goto(f"/rules/{game}")
        await page.wait_for_function(PICTURE_SHOWN)
        how_to = page.locator("#how-to-play")
        assert await page.locator("h1").count() == 1, "one <h1>: the page's title"
        assert "how to play and the rules" in await page.locator("h1").inner_text(), game
        assert (await how_to.locator("h2").first.inner_text()).startswith("How to play"), game
        answer = pictures[f"{game}.png"]
        assert answer.status == 200 and answer.headers["content-type"] == "image/png", game
        picture = how_to.locator("img")
        assert await picture.get_attribute("src") == f"/static/howto/{game}.png"
        assert len(await picture.get_attribute("alt") or "") > 40, (
            "the picture is described for a screen reader"
        )

        # the full rules follow the how-to, unchanged, and its last link leads to them
        rules = page.locator("#the-full-rules")
        assert rules_heading in await rules.locator("h2").first.inner_text(), game
        assert first_ruling in await rules.inner_text(), game
        order = await page.evaluate(
            "() => document.querySelector('#how-to-play').compareDocumentPosition("
            "document.querySelector('#the-full-rules')) & Node.DOCUMENT_POSITION_FOLLOWING"
        )
        assert order, "the full rules come after the how-to"
        assert not await page.evaluate(RULES_AT_TOP), "the how-to comes first"
        await how_to.get_by_role("link", name="The full rules").click()
        await page.wait_for_function(RULES_AT_TOP)
        assert page.url.endswith("#the-full-rules")

        # on a phone the picture is no wider than the screen and nothing scrolls sideways
        await page.set_viewport_size({"width": 390, "height": 844})
        await page.goto(f"/rules/{game}")
        await page.wait_for_function(PICTURE_SHOWN)
        right = await page.evaluate(
            "() => document.querySelector('#how-to-play img').getBoundingClientRect().right"
        )
        assert 100 < right <= 390, (game, right)
        assert await page.evaluate("() => document.documentElement.scrollWidth") <= 390, game
        await screenshot(page, f"how-to-play-{game}-phone")
        await page.goto("/")
