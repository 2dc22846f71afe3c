"""The use cases the API, the workers and the CLI call: the match commands and queries, and the live feed;
they use the domain's decisions and the stores."""
