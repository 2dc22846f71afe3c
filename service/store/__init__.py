"""What is kept, and how: the event store, the repository and its snapshots, listings, platforms, players,
analyses, webhooks, jobs and keys; the only package that imports redis and rq."""
