"""Every game and mode as a PettingZoo AEC environment (``pip install 'matchlog[ai]'``).

``env(game_id, mode, players)`` (modes: ``service.faces.table.modes``) is an ``AECEnv`` over the same
``Seating`` as the OpenSpiel face, so both pick the same tokens (``service.faces.codec``): an agent per
seat (``seat_0``...), ``Discrete(len(vocabulary))`` actions, and observations ``{"observation": the
seat's view's canonical JSON as UTF-8 bytes, zero-padded to OBSERVATION_BYTES (uint8), "action_mask":
1 for each token the seat may pick now (int8)}``. ``reset(seed=...)`` draws the game's chance from
``seed``, setup's at once and play's as the steps reach them (the same seed, the same game:
``seed_test``), or is dealt a server match's with ``reset(options={"match_seed": ...})``; rewards come
at the end, the ranks' returns (``Seating.returns``), and ``env.unwrapped.seating.scores()`` is the
engine's whole result.

Whose turn: the seat the engine lets act. Where several may act at once (a planning phase), they take
turns through the AEC loop: a seat that has begun spelling an action out finishes it, then the next of
them in seat order after it acts; a seat that has not begun one may pick ``WAIT`` and let the next go
first. Nothing a seat picks is shown to the others before its action is
played and the engine shows it.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from service.faces.table import OBSERVATION_BYTES, Seating, Table, canonical


def env(game_id: str, mode: str, players: int, options: dict[str, Any] | None = None) -> MatchlogEnv:
    return MatchlogEnv(Table(game_id, mode, players, options or {}))


class MatchlogEnv(AECEnv):
    """One game and mode as an AEC environment."""

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "matchlog",
        "is_parallelizable": False,
    }

    def __init__(self, table: Table, render_mode: str | None = None) -> None:
        super().__init__()
        self.table = table
        self.render_mode = render_mode
        self.possible_agents = [f"seat_{seat}" for seat in range(table.players)]
        size = len(table.vocabulary)
        self._action_space = spaces.Discrete(size)
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 255, (OBSERVATION_BYTES,), np.uint8),
                "action_mask": spaces.Box(0, 1, (size,), np.int8),
            }
        )
        self.seating: Seating = table.start()
        self._draws = random.Random()  # chance's generator, seeded by ``reset``
        self._last_seat: int | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.seating = self.table.start()
        if options and "match_seed" in options:  # a server match's seed (its seed_revealed), to replay it
            self.seating.deal(options["match_seed"])
        self._draws = random.Random(seed)
        self._chance()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._last_seat = None
        self._select()

    def _chance(self) -> None:
        """Draw what chance decides now (setup's draws, or those an action waits for) with the reset's seed,
        each outcome as likely as it is (``Seating.chance_probabilities``)."""
        while self.seating.is_chance:
            outcomes, chances = zip(*self.seating.chance_probabilities(), strict=True)
            if len(set(chances)) == 1:  # all equally likely: as every game drew before its draws had weights
                self.seating.draw(self._draws.choice(outcomes))
            else:
                self.seating.draw(self._draws.choices(outcomes, chances)[0])

    def _select(self) -> None:
        acting = self.seating.acting()
        if not acting:
            return
        last = self._last_seat
        if last in acting and self.seating.choices[last]:
            seat = last  # it finishes the action it began
        else:
            later = [s for s in acting if last is not None and s > last]
            seat = (later or acting)[0]
        self.agent_selection = self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        observation = np.frombuffer(self.seating.view_bytes(seat), np.uint8).copy()
        mask = np.zeros(len(self.table.vocabulary), np.int8)
        if agent == self.agent_selection and seat in self.seating.acting():
            mask[self.seating.legal_tokens(seat)] = 1
        return {"observation": observation, "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        self._cumulative_rewards[agent] = 0.0
        self.seating.pick(seat, int(action))
        self._chance()
        self._last_seat = seat
        if self.seating.is_over:
            self.rewards = dict(zip(self.agents, self.seating.returns()))
            self.terminations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
        else:
            self._select()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        return canonical(self.seating.view(self.possible_agents.index(self.agent_selection)))

    def close(self) -> None:
        pass
