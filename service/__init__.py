"""matchlog's server: the layers (domain, store, application, http), the games, and at the top the runtime
that wires them (cli, config, serving, processes, metrics)."""
