"""Every game and mode as a Python OpenSpiel game (``pip install 'matchlog[ai]'``).

Importing this module registers, for each game of ``service.games`` and each of its modes
(``service.faces.table.modes``), the OpenSpiel game ``matchlog_<game>_<mode>`` (``-`` as ``_``:
``matchlog_<game id>_<mode>``, the mode in lower case), with one parameter, ``players`` (the mode's
largest count by default), and ``options``, the JSON of match options besides the mode's (``"{}"``: the
defaults)::

    import pyspiel
    import service.faces.openspiel  # registers the games
    game = pyspiel.load_game(service.faces.openspiel.NAMES[0])

Its ``GameType`` says what the catalogue says of the game: ``SIMULTANEOUS`` for a game whose seats act
at once somewhere (a planning phase), ``EXPLICIT_STOCHASTIC`` for one with chance (its setup's draws and
its draws of play, each with its probabilities: ``service.faces.table``), ``IMPERFECT_INFORMATION`` for
one with hidden information, and the utility of the mode: ``ZERO_SUM`` for competitive modes of two
seats or more, ``IDENTICAL`` for co-operative ones, ``GENERAL_SUM`` for mixed ones and solo modes.
Actions are the codec's tokens (``service.faces.codec``); returns are the ranks' (``Seating.returns``)
and the engine's whole result is ``state.scores()``.

Observations are the seat's view (``Seating.view``): the string is its canonical JSON, the tensor that
JSON's UTF-8 bytes (each byte / 255, zero-padded to ``OBSERVATION_BYTES``): lossless and the same for
every game, if not a learner's ideal features. The information state's string is the events as the
server shows them to the seat, then its view (perfect recall: ``Seating.recall``). Its tensor, in a game
with hidden information, is that string's UTF-8 bytes the same way (zero-padded to
``INFORMATION_STATE_BYTES``), so it holds what the seat saw and nothing else; in a game without, where the
view is the whole state, it is the observation's.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from service.faces.codec import WAIT
from service.faces.table import (
    INFORMATION_STATE_BYTES,
    OBSERVATION_BYTES,
    Seating,
    Table,
    canonical,
    modes,
    packaged,
    player_counts,
    shared_table,
    utility,
)
from service.games import GAMES
from service.games.protocol import Game

MAX_GAME_LENGTH = 1_000_000
"""A bound on the decisions of a game, far above any seen (the longest random games: about 2,000)."""


def short_name(game: Game, mode: str) -> str:
    return f"matchlog_{game.info.id.replace('-', '_')}_{mode}"


def game_type(game: Game, mode: str) -> pyspiel.GameType:
    """What the catalogue says of the game, in OpenSpiel's words."""
    options = modes(game)[mode]
    counts = player_counts(game, options)
    kind = utility(game, options)
    info = game.info
    return pyspiel.GameType(
        short_name=short_name(game, mode),
        long_name=f"matchlog {info.name} ({mode})",
        dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS
        if info.dynamics == "simultaneous"
        else pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
        if info.chance
        else pyspiel.GameType.ChanceMode.DETERMINISTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION
        if info.hidden_information or info.dynamics == "simultaneous"
        else pyspiel.GameType.Information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.IDENTICAL
        if kind == "cooperative"
        else pyspiel.GameType.Utility.ZERO_SUM
        if kind == "competitive" and min(counts) > 1
        else pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max(counts),
        min_num_players=min(counts),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification={"players": max(counts), "options": "{}"},
    )


class MatchlogGame(pyspiel.Game):
    """One game and mode of matchlog; ``players`` picks the count."""

    def __init__(self, game_id: str, mode: str, params: dict[str, Any] | None = None) -> None:
        game = GAMES[game_id]
        kind = game_type(game, mode)
        params = {"players": kind.max_num_players, "options": "{}", **(params or {})}
        options = json.dumps(json.loads(params["options"]), sort_keys=True)
        self.table = shared_table(game_id, mode, int(params["players"]), options)
        assert self.table.resolved  # an impossible count fails here, with the game's own message
        super().__init__(
            kind,
            pyspiel.GameInfo(
                num_distinct_actions=len(self.table.vocabulary),
                max_chance_outcomes=self.table.max_chance_outcomes,
                num_players=self.table.players,
                min_utility=-1.0 if self.table.players > 1 else 0.0,
                max_utility=1.0,
                utility_sum=0.0 if kind.utility == pyspiel.GameType.Utility.ZERO_SUM else None,
                max_game_length=MAX_GAME_LENGTH,
            ),
            params,
        )

    def new_initial_state(self) -> MatchlogState:
        return MatchlogState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> Observer:
        return Observer(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class MatchlogState(pyspiel.State):
    """A face's state (``Seating``) under OpenSpiel's ``State`` API."""

    def __init__(self, game: MatchlogGame, seating: Seating | None = None) -> None:
        super().__init__(game)
        self.seating = seating or game.table.start()

    @property
    def table(self) -> Table:
        return self.seating.table

    def current_player(self) -> int:
        if self.seating.is_chance:
            return int(pyspiel.PlayerId.CHANCE)
        if self.seating.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        acting = self.seating.acting()
        if self.table.game.info.dynamics == "simultaneous" and len(acting) > 1:
            return int(pyspiel.PlayerId.SIMULTANEOUS)
        return acting[0]

    def _legal_actions(self, player: int) -> list[int]:
        return self.seating.legal_tokens(player)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.seating.chance_probabilities()

    def _apply_action(self, action: int) -> None:
        if self.seating.is_chance:
            self.seating.draw(action)
        else:
            self.seating.pick(self.current_player(), action)

    def _apply_actions(self, actions: list[int]) -> None:
        self.seating.pick_together(actions)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return self.seating.chance_text(action)
        return self.table.vocabulary.text(action)

    def is_terminal(self) -> bool:
        return self.seating.is_over

    def returns(self) -> list[float]:
        return self.seating.returns()

    def scores(self) -> dict[str, Any]:
        """The engine's result (``scores``, ``ranks`` and the game's breakdown) once the game is over."""
        return self.seating.scores()

    def play(self, seat: int, action: Any) -> None:
        """Play a seat's action as the server takes it (a move read from a server match, or a log's): its
        tokens are applied in turn, the other seats waiting where several decide at once."""
        played = len(self.seating.actions)
        wait = self.table.vocabulary.id_of(WAIT)
        while len(self.seating.actions) == played and self.seating.pending is None:
            token = self.seating.next_pick(seat, action)
            if self.current_player() == pyspiel.PlayerId.SIMULTANEOUS:
                self.apply_actions([token if s == seat else wait for s in range(self.num_players())])
            elif self.current_player() == seat:
                self.apply_action(token)
            else:
                raise ValueError(f"seat {seat} does not decide now")

    def deal(self, seed: str) -> None:
        """Skip the seed's draws and set the game up with ``seed`` (a server match's, to replay it)."""
        if self.history():
            raise ValueError("only a state before any decision is dealt a seed")
        self.seating.deal(seed)

    def __str__(self) -> str:
        if self.seating.pending is not None:
            return f"drawing chance: {self.seating.pending[2].name}"
        if self.seating.is_chance:
            return f"drawing chance: {len(self.seating.draws)} outcomes so far"
        return json.dumps(self.seating.state, sort_keys=True, default=str)


class Observer:
    """The seat's view as a string and a tensor (OpenSpiel's ``PyObserver``)."""

    def __init__(self, game: MatchlogGame, iig_obs_type: pyspiel.IIGObservationType) -> None:
        self.perfect_recall = iig_obs_type.perfect_recall
        # where nothing is hidden the view is the whole state: what was seen before adds nothing to it
        self.recalls = self.perfect_recall and game.table.game.info.hidden_information
        self.tensor = np.zeros(INFORMATION_STATE_BYTES if self.recalls else OBSERVATION_BYTES, np.float32)
        self.dict = {"json_bytes": self.tensor}

    def set_from(self, state: MatchlogState, player: int) -> None:
        seating = state.seating
        data = seating.recall_bytes(player) if self.recalls else seating.view_bytes(player)
        self.tensor[:] = np.frombuffer(data, np.uint8) / 255.0

    def string_from(self, state: MatchlogState, player: int) -> str:
        if self.perfect_recall:
            return state.seating.recall(player)
        return canonical(state.seating.view(player))


def game_of(table: Table) -> MatchlogGame:
    """The OpenSpiel game of a table (a server match's: ``Table.of_match``)."""
    return pyspiel.load_game(
        short_name(table.game, table.mode),
        {"players": table.players, "options": json.dumps(table.options, sort_keys=True)},
    )


def _register() -> list[str]:
    names = []
    for game_id, game in packaged().items():
        for mode in modes(game):
            kind = game_type(game, mode)
            if kind.short_name not in pyspiel.registered_names():
                # a class per game, not a function: pyspiel 2.0.2 aborts at the interpreter's exit when more
                # than one Python function is registered (it frees them without the GIL); classes it keeps
                pyspiel.register_game(kind, _game_class(game_id, mode))
            names.append(kind.short_name)
    return names


def _game_class(game_id: str, mode: str) -> type[MatchlogGame]:
    def __init__(self: MatchlogGame, params: dict[str, Any] | None = None) -> None:
        MatchlogGame.__init__(self, game_id, mode, params)

    name = "".join(part.capitalize() for part in f"{game_id}-{mode}".replace("_", "-").split("-"))
    return type(name, (MatchlogGame,), {"__init__": __init__, "__module__": __name__})


NAMES = _register()
"""The registered games' names."""
