"""The analysis of a finished match, asked for once and run in the background (``workers.jobs.analyse_match``);
the judging is the domain's (``service.domain.analysis``), its progress and result the store's
(``service.store.analyses``)."""

from __future__ import annotations

import time
import uuid
from typing import Any

from service.application import entry_time
from service.application.stores import Stores
from service.domain import analysis
from service.domain.errors import MatchNotOver, TooManyOpen
from service.games.texts import catalogue
from service.store.analyses import FAILED
from service.store.jobqueue import ANALYSIS_TIMEOUT_S

_ = catalogue(__file__).gettext

ANALYSES_PER_ADDRESS = 4
"""Analyses an anonymous client address (or a seat's holder) may have waiting or running at once. Each costs a
worker seconds of search (a four-player game: about 12 s), the moves of a match next to nothing: unbounded,
one client queued them without end and everyone's waited behind them."""
ANALYSES_PER_PLATFORM = 64
"""The same for a platform's key, which asks for its players."""


class Analysis:
    def __init__(self, stores: Stores):
        self.repository = stores.repository
        self.analyses = stores.analyses
        self.jobs = stores.jobs

    def request(self, match_id: str, platform: str | None, address: str) -> dict[str, Any]:
        """Analyse the finished match in the background, once: a second request finds the first one's
        job, or its result. MatchNotOver before the end; NoAnalysis for a game without an analyst;
        TooManyOpen when the asker (``platform``, else the client's ``address``) has as many analyses
        waiting or running as it may."""
        state = self.repository.load(match_id)
        if not state.finished:
            raise MatchNotOver(_("the match has not ended: its analysis can be asked for once it has"))
        if not analysis.available(state.engine):
            raise analysis.NoAnalysis(_("{game} has no analysis of its matches", game=state.engine.info.name))
        if self.analyses.status(match_id) in (
            None,
            FAILED,
        ):  # this asks for work: the asker's bound counts it
            cap = ANALYSES_PER_PLATFORM if platform else ANALYSES_PER_ADDRESS
            requester = f"platform:{platform}" if platform else f"address:{address}"
            if not self.analyses.ask(requester, match_id, cap, int(time.time() * 1000), ANALYSIS_TIMEOUT_S):
                raise TooManyOpen(
                    "analysis",
                    cap,
                    _(
                        "{cap} analyses asked for by this caller are waiting or running, as many as it may: "
                        "ask again once one is done",
                        cap=cap,
                    ),
                )
        job_id = f"analyse-{match_id}-{uuid.uuid4().hex[:8]}"
        if self.analyses.claim(match_id, entry_time.now(), job_id):
            self.jobs.enqueue_analysis(match_id, job_id)
        answer = self.analyses.read(match_id)
        assert answer is not None, "claimed: by this request or an earlier one"
        return answer

    def run(self, match_id: str) -> dict[str, Any]:
        """Run the match's analysis here (the job does), keeping its progress and its result."""
        kept = self.analyses.read(match_id)
        if kept is not None and kept["status"] == "done":  # a second run of the job: nothing to do
            return {"match": match_id, "moves": len(kept["analysis"]["moves"])}
        _, entries = self.repository.read(match_id)
        try:
            result = analysis.analyse(
                entries, lambda done, total: self.analyses.progress(match_id, done, total)
            )
        except Exception as error:
            self.analyses.fail(match_id, f"{type(error).__name__}: {error}")
            raise
        self.analyses.finish(match_id, result, entry_time.now())
        return {"match": match_id, "moves": len(result["moves"])}
