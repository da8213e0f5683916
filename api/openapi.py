"""Write the OpenAPI document generated from the code: ``python -m api.openapi [PATH | -]``."""

from __future__ import annotations

import json
import sys

from service.runtime.settings import PROJECT_ROOT, Settings

DEFAULT_PATH = PROJECT_ROOT / "openapi" / "openapi.json"


def openapi_text() -> str:
    """The OpenAPI document of the app, as stable, sorted JSON."""
    from api.app import create_app
    from api.contract.document import served_document

    document = served_document(create_app(Settings.from_env()))
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def main(argv: list[str]) -> None:
    """Write the document to the path given (default openapi/openapi.json; ``-`` for standard output)."""
    target = argv[0] if argv else str(DEFAULT_PATH)
    text = openapi_text()
    if target == "-":
        sys.stdout.write(text)
    else:
        with open(target, "w", encoding="utf-8") as handle:
            handle.write(text)


if __name__ == "__main__":
    main(sys.argv[1:])
