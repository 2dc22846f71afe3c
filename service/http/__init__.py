"""The HTTP API: the Flask app, its routes, middleware, errors, auth, the moves socket, the OpenAPI contract's
assembly, the viewer and /docs; the only package that imports Flask."""
