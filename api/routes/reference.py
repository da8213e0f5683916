"""The pages a problem's ``type`` and the catalog's ``rules`` link to: ``GET /problems/{kind}`` describes a
kind of problem, ``GET /rules/{game}`` serves the game's rule page (docs/rules/, shipped as the package data
of ``domain.data``; Markdown, or HTML when the client prefers it: then with the game's short "how to play",
docs/howto/, above the rules)."""

from __future__ import annotations

from typing import Any

from litestar import Controller, Request, Response, get
from litestar.di import NamedDependency
from litestar.params import FromPath
from markdown_it import MarkdownIt

from api.http.formats import OFFERS, negotiate
from api.http.problems import KIND_BY_NAME, KINDS, PROBLEM_PATH
from domain.data import howto_page, rule_page
from service.games.service import GameService
from service.runtime import errors

MARKDOWN = "text/markdown"
HTML = "text/html"
# CommonMark with tables; raw HTML in the Markdown is shown as text, never passed through
RENDERER = MarkdownIt("commonmark", {"html": False}).enable("table")


def page(
    request: Request[Any, Any, Any],
    title: str,
    markdown: str,
    links: dict[str, str] | None = None,
    lead: str | None = None,
) -> Response[str]:
    """A Markdown text as ``text/markdown``, or, when the client prefers ``text/html``, rendered as HTML
    inside the site's layout (``links``: further pages to name under the text, by their words; ``lead``: a
    Markdown introduction shown above the text in a browser only, so the Markdown stays the text itself)."""
    if negotiate(request) == HTML:
        engine = request.app.template_engine
        assert engine is not None  # the app always configures its templates (api/web/pages.py)
        body = engine.get_template("document.html.j2").render(
            title=title,
            # with a lead, the page is headed by its title and each text's headings go one level down
            body=html_of(markdown, below_title=lead is not None),
            lead=html_of(lead, below_title=True) if lead else None,
            links=links or {},
        )
        return Response(body, media_type=HTML)
    return Response(markdown, media_type=MARKDOWN)


def html_of(markdown: str, below_title: bool = False) -> str:
    """Markdown as HTML; ``below_title``: under the page's own <h1>, every heading one level lower (a text's
    ``#`` an <h2>), so that a page has one <h1>."""
    tokens = RENDERER.parse(markdown)
    if below_title:
        for token in tokens:
            if token.type in ("heading_open", "heading_close"):
                token.tag = f"h{min(int(token.tag[1:]) + 1, 6)}"
    html: str = RENDERER.renderer.render(tokens, RENDERER.options, {})
    return html


def problem_page(kind: str) -> str:
    """The Markdown page of a kind of problem (404 for an unknown kind)."""
    found = KIND_BY_NAME.get(kind)
    if found is None:
        raise errors.NotFound("no_such_problem", "no such problem type; see /problems")
    return (
        f"# {found.title} ({found.status})\n\n{found.description}\n\n"
        f"Problem type `{PROBLEM_PATH}{found.kind}`: an `application/problem+json` body (RFC 9457) with "
        "`type`, `title` (always this one), `status`, `detail`, a stable `code`, `rule` when a game rule "
        "refused, and `errors` (`pointer`, `message`) for invalid fields.\n"
    )


def problem_index() -> str:
    """The Markdown list of every kind of problem."""
    lines = [f"- [{k.status} {k.title}]({PROBLEM_PATH}{k.kind}) `{k.kind}`" for k in KINDS]
    return "# Problem types\n\n" + "\n".join(lines) + "\n"


def rule_text(rules: str) -> str:
    """The rule page a game's ``rules`` reference names (404 if it is not installed)."""
    text = rule_page(rules)
    if text is None:
        raise errors.NotFound("no_rule_page", "this game's rule page is not installed")
    return text


class ReferenceController(Controller):
    """Problem type pages and rule pages."""

    tags = ["reference"]

    @get(
        "/problems",
        operation_id="listProblemTypes",
        summary="Every kind of problem",
        opt={OFFERS: (MARKDOWN, HTML)},
        media_type=MARKDOWN,
    )
    async def problems(self, request: Request[Any, Any, Any]) -> Response[str]:
        """A list of the problem types (``type`` URIs) the service answers with."""
        return page(request, "Problem types", problem_index())

    @get(
        "/problems/{kind:str}",
        operation_id="getProblemType",
        summary="What a kind of problem means",
        opt={OFFERS: (MARKDOWN, HTML)},
        media_type=MARKDOWN,
    )
    async def problem(self, request: Request[Any, Any, Any], kind: FromPath[str]) -> Response[str]:
        """The page a problem's ``type`` resolves to: its status, title and what to do about it."""
        return page(request, kind, problem_page(kind))

    @get(
        "/rules/{game:str}",
        operation_id="getRules",
        summary="A game's rule page",
        opt={OFFERS: (MARKDOWN, HTML)},
        media_type=MARKDOWN,
    )
    async def rules(
        self, request: Request[Any, Any, Any], game_service: NamedDependency[GameService], game: FromPath[str]
    ) -> Response[str]:
        """The rule page (with its rulings B-n, Z-n, J-n that errors cite) of a game of the catalog; a browser
        reads the game's short "how to play" (docs/howto/) first."""
        name = game.removesuffix(".md")
        found = game_service.games.get(name)
        if found is None:
            raise errors.NotFound("game_not_found", "no such game; see /v1/catalog")
        links = {"Start a game on the home page": "/"}
        title = f"{found.title}: how to play and the rules"
        return page(request, title, rule_text(found.rules), links, lead=howto_page(name))
