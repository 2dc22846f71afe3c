"""The analysis of a finished match, asked for once and run in the background (``workers.jobs.analyse_match``);
the judging is the domain's (``service.domain.analysis``), its progress and result the store's
(``service.store.analyses``)."""

from __future__ import annotations

import uuid
from typing import Any

from service.application import entry_time
from service.application.stores import Stores
from service.domain import analysis
from service.domain.errors import MatchNotOver


class Analysis:
    def __init__(self, stores: Stores):
        self.repository = stores.repository
        self.analyses = stores.analyses
        self.jobs = stores.jobs

    def request(self, match_id: str) -> dict[str, Any]:
        """Analyse the finished match in the background, once: a second request finds the first one's
        job, or its result. MatchNotOver before the end; NoAnalysis for a game without an analyst."""
        state = self.repository.load(match_id)
        if not state.finished:
            raise MatchNotOver("the match has not ended: its analysis can be asked for once it has")
        if not analysis.available(state.engine):
            raise analysis.NoAnalysis(f"{state.engine.info.name} has no analysis of its matches")
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
