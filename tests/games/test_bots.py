"""Bots as seats: created through the API, choosing from what their seat may see, deterministic."""

from __future__ import annotations

import copy
import hashlib
import hmac
import random

import pytest

from service.domain import lifecycle
from service.domain.lifecycle import SeedSecret
from service.domain.replay import MatchState
from service.games import GAMES, protocol
from service.games.bots import BOTS, GreedyBot, SeatView
from service.games.chock_a_block import seat_view
from service.store.keys import Keys
from service.store.platforms import Platforms
from tests.engines import new_state, play
from tests.helpers import bearer, full_log


def _mid_game(game_id: str, players: int, moves: int, seed: int = 7):
    engine = GAMES[game_id]
    state = new_state(engine, players, f"s{seed}")
    rng = random.Random(seed)
    for _ in range(moves):
        if engine.is_over(state):
            break
        seat = engine.to_act(state)[0]
        state = engine.play(state, seat, rng.choice(engine.legal_actions(state, seat))).states[-1]
    return state


def _match_state(game_id: str, game: dict, players: int, bot: str) -> MatchState:
    return MatchState(
        version=9,
        game_id=game_id,
        options={},
        players=tuple(f"p{i}" for i in range(players)),
        commitment="",
        game=game,
        bots=tuple(bot for _ in range(players)),
    )


@pytest.mark.parametrize("bot", sorted(BOTS))
def test_a_bot_never_reads_hidden_state(bot):
    """Chock-a-Block hands and deck are hidden: scramble what the seat cannot see (the other hand, the
    deck order) and the bot's choice stays the same, position after position."""
    secret = SeedSecret("bot-test-seed", "salt")
    for moves in range(0, 60, 3):
        game = _mid_game("chock-a-block", 2, moves)
        if GAMES["chock-a-block"].is_over(game):
            break
        seat = GAMES["chock-a-block"].to_act(game)[0]
        other = 1 - seat
        scrambled = copy.deepcopy(game)
        pool = scrambled["seats"][other]["hand"] + scrambled["deck"]
        random.Random(moves).shuffle(pool)
        hand_size = len(scrambled["seats"][other]["hand"])
        scrambled["seats"][other]["hand"], scrambled["deck"] = pool[:hand_size], pool[hand_size:]
        chosen = lifecycle.bot_action(_match_state("chock-a-block", game, 2, bot), seat, secret)
        assert lifecycle.bot_action(_match_state("chock-a-block", scrambled, 2, bot), seat, secret) == chosen


def test_greedy_never_sees_a_roll_before_it_is_made():
    """Blackout: Hong Kong draws a patrol's injury from a key the seats never see (``rng``): put another
    key in the state and the greedy bot, comparing patrol takes and declines, chooses the same."""
    engine, secret = GAMES["blackout-hong-kong"], SeedSecret("bot-test-seed", "salt")
    compared = 0
    for game_seed in range(3):
        game = engine.setup(engine.resolve_options({}, 2), 2, f"b{game_seed}")
        rng = random.Random(game_seed)
        while not engine.is_over(game) and game["round"] < 6:
            seat = engine.to_act(game)[0]
            legal = engine.legal_actions(game, seat)
            if any(action["type"] == "PATROL_TAKE" for action in legal):
                rekeyed = {**game, "rng": "0" * 64}
                chosen = lifecycle.bot_action(
                    _match_state("blackout-hong-kong", game, 2, "greedy"), seat, secret
                )
                other = _match_state("blackout-hong-kong", rekeyed, 2, "greedy")
                assert lifecycle.bot_action(other, seat, secret) == chosen, (game_seed, game["round"])
                compared += 1
            game = engine.play(game, seat, rng.choice(legal)).states[-1]
    assert compared >= 5


HIDDEN_OR_CHANCE = [g for g in GAMES.values() if g.info.hidden_information or g.info.chance]


def _shuffled(items: list, rng: random.Random) -> list:
    return rng.sample(items, len(items))


def _swapped(state: dict, where: list[tuple[list, str]], rng: random.Random) -> dict:
    """``state`` with one card of the first hidden place exchanged for one of the second: ``where`` names
    each place as (the dicts on the path to it, its key), so the copy shares nothing it changes."""
    (first_path, first_key), (second_path, second_key) = where
    first, second = list(first_path[-1][first_key]), list(second_path[-1][second_key])
    if not first or not second:
        return state
    i, j = rng.randrange(len(first)), rng.randrange(len(second))
    first[i], second[j] = second[j], first[i]
    first_path[-1][first_key], second_path[-1][second_key] = first, second
    return state


def _chock_a_block_scrambled(state: dict, seat: int, rng: random.Random) -> dict:
    """The deck in another order, and a card of another hand exchanged for one of the deck."""
    copy = {**state, "seats": [dict(s) for s in state["seats"]], "deck": _shuffled(state["deck"], rng)}
    if seat_view.hands_open(state):  # nothing of the hands is hidden then
        return copy
    other = copy["seats"][1 - seat]
    return _swapped(copy, [([other], "hand"), ([copy], "deck")], rng)


def _blackout_scrambled(state: dict, seat: int, rng: random.Random) -> dict:
    """The deck in another order, a card of another hand exchanged for one of the deck, one of the deck for
    one of the reserve, and other rolls to come."""
    copy = {
        **state,
        "players": [dict(p) for p in state["players"]],
        "deck": _shuffled(state["deck"], rng),
        "rng": f"{rng.getrandbits(256):064x}",
    }
    other = next(p for p in copy["players"] if p["seat"] != seat)
    _swapped(copy, [([other], "hand"), ([copy], "deck")], rng)
    _swapped(copy, [([copy], "deck"), ([copy], "reserve")], rng)
    return _tiles_swapped(copy, seat, rng)


def _tiles_swapped(state: dict, seat: int, rng: random.Random) -> dict:
    """Two face-down district tiles the seat has not seen, with the same marks (who has looked), in each
    other's place: which place holds which tile is what the seat does not know."""
    unseen = [
        (district_id, i, tile)
        for district_id, district in state["districts"].items()
        for i, tile in enumerate(district["tiles"])
        if not state["tiles"][tile]["faceUp"] and seat not in state["tiles"][tile]["seenBy"]
    ]
    pairs = [
        (a, b) for a in unseen for b in unseen if a[2] < b[2] and state["tiles"][a[2]] == state["tiles"][b[2]]
    ]
    if not pairs:
        return state
    (d1, i1, t1), (d2, i2, t2) = rng.choice(pairs)
    districts = {k: {**v, "tiles": list(v["tiles"])} for k, v in state["districts"].items()}
    districts[d1]["tiles"][i1], districts[d2]["tiles"][i2] = t2, t1
    return {**state, "districts": districts}


SCRAMBLED = {  # another match the seat cannot tell apart
    "chock-a-block": _chock_a_block_scrambled,
    "blackout-hong-kong": _blackout_scrambled,
}


@pytest.mark.parametrize("game", HIDDEN_OR_CHANCE, ids=lambda g: g.info.id)
def test_a_bot_looks_ahead_only_on_what_its_seat_could_see(game):
    """Every game with hidden information or chance makes the state its seat could know (``seen_by``),
    and the greedy bot's look ahead is played on it: the same for two matches its seat cannot tell apart,
    whatever the others hold, however the deck lies, whichever rolls are to come."""
    rng = random.Random(5)
    for seed in ("a", "b", "c"):
        state = new_state(game, 2, seed)
        for _ in range(rng.randrange(0, 30)):
            if game.is_over(state) or not game.to_act(state):
                break
            seat = game.to_act(state)[0]
            state = play(game, state, seat, rng.choice(game.legal_actions(state, seat)))
        seat = (game.to_act(state) or [0])[0]
        seen = game.seen_by(state, seat)
        assert seen is not None
        assert protocol.looked_ahead_on(game, state, seat) == seen
        assert game.view(seen, seat) == game.view(state, seat)  # the seat's own picture is kept
        assert game.seen_by(seen, seat) == seen  # what it decides depends on the seat's view alone
        assert game.seen_by(SCRAMBLED[game.info.id](state, seat, rng), seat) == seen, "it read a hidden part"


def test_a_bot_is_given_the_seat_view_and_nothing_else():
    seen = []

    class Spy:
        def choose(self, seat, rng):
            seen.append(seat)
            return seat.legal_actions[0]

    BOTS["spy"] = Spy()
    try:
        game = _mid_game("chock-a-block", 2, 5)
        seat = GAMES["chock-a-block"].to_act(game)[0]
        lifecycle.bot_action(_match_state("chock-a-block", game, 2, "spy"), seat, SeedSecret("s", "t"))
    finally:
        del BOTS["spy"]
    (given,) = seen
    assert isinstance(given, SeatView) and given.view == GAMES["chock-a-block"].view(game, seat)
    assert set(vars(given)) == {"seat", "view", "legal_actions", "standing_after", "state", "rules", "level"}
    assert given.state is None and given.rules is None  # hidden cards: no state, no engine, only the view
    assert given.view["players"][1 - seat]["hand"] is None  # the other hand is not in it


def test_a_bots_choice_is_seeded_from_the_match():
    game = _mid_game("blokus", 2, 6)
    state = _match_state("blokus", game, 2, "random")
    seat = GAMES["blokus"].to_act(game)[0]
    choices = {
        str(lifecycle.bot_action(state, seat, SeedSecret(seed, "salt"))) for seed in ("a", "b", "c", "d")
    }
    assert len(choices) > 1  # another match, other moves
    assert lifecycle.bot_action(state, seat, SeedSecret("a", "salt")) == lifecycle.bot_action(
        state, seat, SeedSecret("a", "salt")
    )


def test_greedy_takes_the_best_immediate_standing():
    """Blokus, simple scoring (fewest squares left wins): greedy places one of its biggest pieces."""
    game = _mid_game("blokus", 2, 0)
    engine = GAMES["blokus"]
    legal = engine.legal_actions(game, 0)

    def standing_after(i):
        scores = engine.scores(engine.play(game, 0, legal[i]).states[-1])
        return {"scores": scores["scores"], "ranks": scores["ranks"]}

    action = GreedyBot().choose(SeatView(0, engine.view(game, 0), legal, standing_after), random.Random(1))
    assert len(action["cells"]) == 5


def test_bot_seats_are_created_named_and_listed(client):
    created = client.post(
        "/v1/matches",
        json={
            "game": "blokus",
            "players": [
                {"name": "ann"},
                {"bot": "random"},
                {"bot": "greedy", "name": "Greta"},
                {"open": True},
            ],
        },
    )
    assert created.status_code == 201, created.json
    assert created.json["seats"][1] == {
        "seat": 1,
        "name": "random bot",
        "bot": "random",
    }  # no token: nobody acts for it
    assert created.json["seats"][2] == {"seat": 2, "name": "Greta", "bot": "greedy"}
    match = client.get(f"/v1/matches/{created.json['id']}").json
    assert match["players"][1] == {"seat": 1, "name": "random bot", "bot": "random"}
    assert match["players"][3] == {"seat": 3, "open": True}
    assert (
        client.post(f"/v1/matches/{created.json['id']}/seats/1/join", json={"name": "eve"}).status_code == 409
    )
    refused = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"bot": "clever"}]}
    )
    assert refused.status_code == 400 and "players.1.bot" in refused.json["fields"]
    assert {"random", "greedy"} <= set(client.get("/v1/games").json[0]["bots"])
    both = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"bot": "random", "open": True}]}
    )
    assert both.status_code == 400
    token = created.json["seats"][0]["token"]
    assert (
        client.get(f"/v1/matches/{created.json['id']}/legal-actions", headers=bearer(token)).status_code
        == 200
    )


def test_a_platform_hands_a_seat_to_a_bot_and_back_to_a_person(client, settings, fake_redis):
    _, key = Platforms(fake_redis, Keys(settings.namespace)).create("arena")
    created = client.post(
        "/v1/matches",
        json={"game": "blokus", "players": [{"name": "ann"}, {"name": "bob"}]},
        headers=bearer(key),
    ).json
    match_id, bob = created["id"], created["seats"][1]["token"]
    to_bot = client.post(
        f"/v1/matches/{match_id}/seats/1/replace", json={"bot": "greedy"}, headers=bearer(key)
    )
    assert to_bot.status_code == 200, to_bot.json
    assert to_bot.json == {"seat": 1, "name": "greedy bot", "bot": "greedy", "version": 2}
    assert (
        client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(bob)).json["error"]
        == "wrong_token"
    )
    assert client.get(f"/v1/matches/{match_id}").json["players"][1] == {
        "seat": 1,
        "name": "greedy bot",
        "bot": "greedy",
    }
    back = client.post(
        f"/v1/matches/{match_id}/seats/1/replace", json={"name": "carl"}, headers=bearer(key)
    ).json
    assert back["name"] == "carl" and back["version"] == 3 and "bot" not in back
    assert (
        client.get(f"/v1/matches/{match_id}/legal-actions", headers=bearer(back["token"])).status_code == 200
    )
    log = full_log(client, match_id)
    assert [(e["type"], e["data"]) for e in log[1:]] == [
        ("seat_replaced", {"seat": 1, "name": "greedy bot", "bot": "greedy"}),
        ("seat_replaced", {"seat": 1, "name": "carl"}),
    ]
    assert [e["text"] for e in log[1:]] == [
        "seat 1 is now played by the greedy bot",
        "seat 1 is now played by carl",
    ]
    assert client.get(f"/v1/matches/{match_id}").json["players"] == [
        {"seat": 0, "name": "ann"},
        {"seat": 1, "name": "carl"},
    ]
    ann = created["seats"][0]["token"]
    assert (
        client.post(
            f"/v1/matches/{match_id}/seats/1/replace", json={"bot": "random"}, headers=bearer(ann)
        ).json["error"]
        == "platform_only"
    )
    for seat in (5, -1):
        assert (
            client.post(
                f"/v1/matches/{match_id}/seats/{seat}/replace", json={"bot": "random"}, headers=bearer(key)
            ).json["error"]
            == "seat_not_found"
        )
    assert (
        client.post(
            f"/v1/matches/{match_id}/seats/1/replace",
            json={"bot": "random", "name": "x"},
            headers=bearer(key),
        ).status_code
        == 400
    )


def test_a_bots_level_is_shown_beside_its_catalogue_name(client):
    created = client.post(
        "/v1/matches",
        json={"game": "blokus", "players": [{"name": "ann"}, {"bot": "blokus-strong", "level": 3}]},
    )
    assert created.status_code == 201, created.json
    assert created.json["seats"][1] == {
        "seat": 1,
        "name": "blokus-strong bot",
        "bot": "blokus-strong",
        "level": 3,
    }
    players = client.get(f"/v1/matches/{created.json['id']}").json["players"]
    catalogue = next(g for g in client.get("/v1/games").json if g["id"] == "blokus")
    assert players[1]["bot"] in catalogue["bots"] and players[1]["level"] == 3


def test_a_level_is_only_for_a_games_own_search_bots(client):
    refused = client.post(
        "/v1/matches", json={"game": "blokus", "players": [{"name": "a"}, {"bot": "greedy", "level": 2}]}
    )
    assert refused.status_code == 400 and "players.1.level" in refused.json["fields"]


def test_a_bots_move_and_a_clock_check_are_taken_back_soon_if_their_worker_dies(real_redis, settings):
    """RQ takes a job whose worker died back only after its timeout (three minutes by default): a bot's move
    and a clock check have short ones, so a crashed worker stalls a match for well under a minute."""
    from rq.job import Job

    from service.store.jobqueue import BOT_MOVE_TIMEOUT_S, CHECK_CLOCK_TIMEOUT_S, JobQueue
    from service.store.keys import Keys

    jobs = JobQueue(real_redis, Keys(settings.namespace))
    jobs.enqueue_bot_move("a" * 32, 1, 5)
    jobs.enqueue_deadline("a" * 32, 5, 1_000)
    bot = Job.fetch(f"bot-{'a' * 32}-1-v5", connection=real_redis)
    clock = Job.fetch(f"clock-{'a' * 32}-v5-1000-0", connection=real_redis)
    assert (bot.timeout, clock.timeout) == (
        BOT_MOVE_TIMEOUT_S,
        CHECK_CLOCK_TIMEOUT_S,
    ) and BOT_MOVE_TIMEOUT_S <= 30
    bot.delete()
    clock.delete()


def test_a_job_whose_worker_died_between_taking_and_starting_it_goes_back_on_the_queue(
    real_redis, settings, monkeypatch
):
    """RQ moves a job from the queue to an intermediate list, then starts it: a worker killed in between
    left the job in that list, and the match waited for a bot's move that nobody would make."""
    from service.store import jobqueue
    from service.store.keys import Keys

    jobs = jobqueue.JobQueue(real_redis, Keys(settings.namespace))
    jobs.enqueue_bot_move("b" * 32, 1, 7)
    queue = jobs.queue("bots")
    job_id = f"bot-{'b' * 32}-1-v7"
    assert (
        real_redis.lmove(queue.key, queue.intermediate_queue_key) == job_id.encode()
    )  # taken, then the kill
    jobs.clean_registries()  # first seen: it may just be starting
    assert queue.get_job_ids() == [] and real_redis.lrange(queue.intermediate_queue_key, 0, -1) == [
        job_id.encode()
    ]
    monkeypatch.setattr(jobqueue, "STRANDED_S", 0)
    jobs.clean_registries()
    assert queue.get_job_ids() == [job_id] and real_redis.llen(queue.intermediate_queue_key) == 0
    # a sighting is forgotten once the job has left the list (a live worker started it, say): the same id
    # taken again later is not requeued on its first sighting, however old the one before
    assert real_redis.lmove(queue.key, queue.intermediate_queue_key) == job_id.encode()
    jobs.clean_registries()  # seen, in the milliseconds before its worker starts it
    assert real_redis.hlen(jobs.keys.stranded_jobs) == 1
    real_redis.lrem(queue.intermediate_queue_key, 1, job_id)  # started
    jobs.clean_registries()
    assert real_redis.hlen(jobs.keys.stranded_jobs) == 0
    real_redis.lpush(queue.intermediate_queue_key, job_id)  # its retry, taken later
    jobs.clean_registries()
    assert real_redis.lrange(queue.intermediate_queue_key, 0, -1) == [
        job_id.encode()
    ]  # first sighting: left be
    real_redis.delete(queue.intermediate_queue_key, jobs.keys.stranded_jobs)
    queue.fetch_job(job_id).delete()


def test_only_a_bot_moves_a_bots_seat():
    """A process may trust a seat's old token for a moment after the seat went to a bot: the rules refuse a
    person's move for a bot's seat all the same."""
    from service.domain import lifecycle
    from service.domain.lifecycle import SeedSecret
    from service.games import GAMES
    from service.games.protocol import IllegalAction

    secret = SeedSecret("seed", "salt")
    step = lifecycle.begin(
        "blokus",
        GAMES["blokus"].resolve_options({}, 2),
        ["ann", "random bot"],
        secret,
        "2026-01-01T00:00:00.000Z",
        bots=["random", "random"],
    )
    action = step.state.legal_actions(0)[0]
    with pytest.raises(IllegalAction) as refused:
        lifecycle.act(step.state, 0, action, secret, "2026-01-01T00:00:01.000Z")
    assert refused.value.reason == "seat_played_by_a_bot"
    moved = lifecycle.act(step.state, 0, action, secret, "2026-01-01T00:00:01.000Z", by="bot:random")
    assert moved.state.version > step.state.version


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_the_random_bots_move_makes_no_view(game_id, monkeypatch):
    """A cheapest move (a match past its bot budgets) and a random bot's move read the legal actions only: the
    seat's view and the state to look ahead on cost a Blackout move nine tenths of its CPU, and the random bot
    reads neither. The move is the one the generator picks from the legal actions, as before."""
    engine = GAMES[game_id]
    players = 2
    game = _mid_game(game_id, players, 4)
    seat = engine.to_act(game)[0]
    secret = SeedSecret("cheap", "salt")
    mixed = hmac.new(b"cheap", f"bot:{seat}:9".encode(), hashlib.sha256).digest()
    expected = random.Random(mixed).choice(engine.legal_actions(game, seat))

    def made(*_args, **_kwargs):
        raise AssertionError("a view was made for the random bot")

    monkeypatch.setattr(type(engine), "view", made)
    monkeypatch.setattr(type(engine), "seen_by", made)
    greedy = _match_state(game_id, game, players, "greedy")
    assert lifecycle.bot_action(greedy, seat, secret, cheapest=True) == expected
    assert lifecycle.bot_action(_match_state(game_id, game, players, "random"), seat, secret) == expected
