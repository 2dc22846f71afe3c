"""The pure domain: a match's log and chain, its fold, life and clocks, what is shown of it, its analysis and
ratings; no I/O, nothing but the games and pure libraries."""
