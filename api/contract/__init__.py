"""The OpenAPI document: per-operation problems and media types, per-game schemas, publishing it."""
