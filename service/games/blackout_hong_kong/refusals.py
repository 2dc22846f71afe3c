"""Every reason Blackout: Hong Kong refuses an action with (``IllegalAction.reason``), and the rule of
``service/games/blackout_hong_kong/rules.md`` each enforces. The engine's ``refusals``: the catalogue lists them,
and the tests fail on a refusal that is not declared here or a declared one no test produces.

Codes are part of the API: never rename one. The message of each refusal names the exact rule."""

from __future__ import annotations

from service.games.protocol import Refusal, turn_refusals
from service.games.texts import N_

REFUSALS = {
    **turn_refusals("R-0.3", "E-3"),
    # what an action may be at all, and when (state machine §3.9, action list §8.2)
    "unknown_action": Refusal("§8.2", N_("no such action type")),
    "wrong_phase": Refusal("§3.9", N_("the action belongs to another phase or step of the round")),
    "decision_pending": Refusal("§3.9", N_("a queued decision of this seat must be resolved first")),
    "not_pending": Refusal("§3.9", N_("no decision of that kind is pending")),
    # setup
    "unknown_location": Refusal("S-12", N_("no such location for a start cube")),
    "location_taken": Refusal("S-12, A-16", N_("another player's start cube is already there")),
    # Phase 1: planning
    "plan_closed": Refusal("R-1.7, A-51", N_("the plan is already in and plans may not be revised")),
    "duplicate_card": Refusal("R-1.5", N_("the planned cards must be distinct")),
    "not_in_hand": Refusal("R-1.5, R-4.5", N_("the card is not in the player's hand")),
    "slot_locked": Refusal("R-1.5", N_("slot 4 is locked until power restoration B")),
    # Phase 2: reveal, gather, specialists
    "no_card_to_reveal": Refusal("R-2.2", N_("the slot holds no card planned face-down this round")),
    "not_revealed": Refusal("R-2.2, A-43", N_("the card is not the one being resolved this turn")),
    "not_a_volunteer": Refusal("R-2.4", N_("only a volunteer gathers")),
    "not_a_specialist": Refusal("R-2.5", N_("only a specialist uses a specialist row")),
    "already_used": Refusal(
        "R-2.4, R-2.5, R-8.4", N_("the volunteer, row or check-mark action was used already")
    ),
    "die_in_the_way": Refusal(
        "R-2.4(d), A-12", N_("the shift would land on another die (SHIFT_ONTO_OTHER_DIE off)")
    ),
    "not_enough_transport": Refusal("R-2.4(b)", N_("too few transport tokens for the shift")),
    "unknown_row": Refusal("R-2.5", N_("the card has no such row or alternative")),
    "cards_unrevealed": Refusal(
        "R-2.2", N_("every card planned this round must be revealed before the turn ends")
    ),
    # Phase 3: objectives and close-outs
    "unknown_objective": Refusal("R-3.2, R-3.9", N_("no such objective is open to the player")),
    "requirement_unmet": Refusal("R-3.3, R-3.4", N_("a requirement of the objective is not met")),
    "no_marker_cube": Refusal("R-3.7, C-6, A-38", N_("no cube in supply to mark the objective")),
    "no_close_out": Refusal(
        "R-3.7, A-20", N_("no partly completed plan to close out, or another card's decision")
    ),
    "cannot_decline": Refusal("R-3.12(7), A-15", N_("the placement is mandatory")),
    "not_a_target": Refusal("R-3.12, §4.1", N_("not a location to place on, or not a card in the hospital")),
    # payments (§8.3)
    "cannot_afford": Refusal("R-0.5, R-5.3, R-0.4(b)", N_("the player does not hold what the action costs")),
    "overpayment": Refusal("§8.3", N_("the payment is more than what is owed")),
    "payment_mismatch": Refusal(
        "R-0.5, §8.3", N_("the payment does not match the cost (or has a negative amount)")
    ),
    "unknown_resource": Refusal("§8.3", N_("the payment names something that is not a resource")),
    # Phase 4: patrols
    "already_patrolling": Refusal("R-4.1, R-4.4", N_("the player is already looking at a district")),
    "unknown_district": Refusal("R-4.2", N_("no such district")),
    "not_eligible": Refusal(
        "R-4.2", N_("the district was chosen this round, has no tiles, or none of the player's")
    ),
    "no_patrol": Refusal("R-4.4", N_("the player is not looking at a district")),
    "unknown_tile": Refusal("R-4.4", N_("the tile is not in the district being looked at")),
    "bad_party": Refusal("R-4.5", N_("the party is not one or more distinct cards with a search icon")),
    "not_enough_gps": Refusal("R-4.5", N_("the player does not hold that many GPS tokens")),
    "not_exploration_tile": Refusal("R-4.5", N_("exploration takes a tile with the lowest easy challenge")),
    "challenge_unmet": Refusal("R-4.5, A-24", N_("the party has too few icons for the challenge")),
    # Phase 5: the market
    "cell_empty": Refusal("R-5.4", N_("the market cell is empty")),
    "space_taken": Refusal("R-5.4", N_("the objective space is not empty")),
    # Phases 6 and 7: clean-up and houses
    "not_discardable": Refusal("R-6.5, A-06", N_("only cards of the player's objective area are discarded")),
    "no_house_due": Refusal("R-7.3(b)", N_("no house of the player is due on that district")),
    "space_uncovered": Refusal("R-7.3(b)", N_("that check-mark space holds no house any more")),
    # Phase 8: refill and check-mark actions
    "refill_not_allowed": Refusal(
        "R-8.2, R-8.3", N_("one refill a turn, and none with a hand over the limit")
    ),
    "not_largest_slot": Refusal("R-8.3, A-32", N_("a refill takes a slot with the most cards")),
    "not_refilled": Refusal(
        "R-8.3, R-8.4", N_("refill (or decline) first; only who refilled activates actions")
    ),
    "action_locked": Refusal(
        "R-8.4, §4.1", N_("the check-mark action is still under a house, or not unlocked")
    ),
    # free actions
    "pool_empty": Refusal("R-0.4(a), A-37", N_("the transport pool is empty")),
    "no_cube": Refusal("R-0.4(b)", N_("not enough cubes in the player's supply")),
}
