"""Put on the ``PYTHONPATH`` of the ``matchlog serve`` that tests/test_doc_sessions.py starts, with
``MATCHLOG_DOC_SEEDS=1``: every process of that server counts its seeds (tests/doc_seeds.py)."""

import os

if os.environ.get("MATCHLOG_DOC_SEEDS") == "1":
    from tests.doc_seeds import install

    install()
