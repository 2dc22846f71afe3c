"""Rule workers: the projector that follows the log, and the RQ jobs it and the API enqueue."""
