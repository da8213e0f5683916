"""The API documentation at /schema leads back to the site (a Markdown link in the document's description,
which Swagger UI renders under the title), and shows the description's `<seat token>` as text, not as an HTML tag."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Visit

pytestmark = [pytest.mark.e2e, pytest.mark.db]


async def test_the_api_docs_link_back_to_the_site(visit: Visit) -> None:
    page = visit.page
    await page.goto("/schema", timeout=60_000, wait_until="domcontentloaded")
    await page.wait_for_selector(".swagger-ui .info .title", timeout=60_000)
    back = page.locator(".swagger-ui .info a[href='/']")
    await back.wait_for(timeout=60_000)
    assert await back.text_content() == "the home page"
    assert "Bearer <seat token>" in (await page.text_content(".swagger-ui .info .description") or "")
    async with visit.context.expect_page() as opened:  # Swagger UI opens a description's links in a new tab
        await back.click()
    home = await opened.value
    await home.wait_for_url(visit.base + "/")
    await home.wait_for_selector("#lobby")
