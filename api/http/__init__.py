"""HTTP plumbing shared by every route: middleware, problem+json, media types, headers, the server protocol."""
