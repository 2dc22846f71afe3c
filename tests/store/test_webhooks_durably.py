"""What a delivery needs later is written as durably as the API's writes: with replicated durability a
failover lost a delivery's body (the delivery dropped for good) or the record of a match's latest delivery
(the next one named an older ``previous_version``), both found by the fault harness (``tests/faults``)."""

from __future__ import annotations

from typing import Any

from service.domain.serverkey import ServerKey
from service.store.keys import Keys
from service.store.webhooks import Webhooks


def test_a_deliverys_body_and_its_order_are_written_durably(fake_redis, settings):
    keys = Keys(settings.namespace)
    written: list[str] = []

    def durably(key: str, write: Any) -> Any:
        written.append(key)
        return write(fake_redis)

    hooks = Webhooks(fake_redis, keys, ServerKey(settings.secret_key), durably)
    digest = hooks.keep_body('{"entries": []}')
    assert hooks.body(digest) == '{"entries": []}'
    assert hooks.previous_version("h1", "m1", 3) is None
    assert hooks.previous_version("h1", "m1", 5) == 3
    assert hooks.previous_version("h1", "m1", 5) == 3, "asked again for one version: the same answer"
    # a record not begun yet is written once it is known no release before the fences left one
    assert written == [keys.webhook_body(digest), *[keys.webhook_order("h1", "m1")] * 4]


def test_a_record_of_the_release_before_the_fences_is_followed(fake_redis, settings):
    """The order record moved under the match's tag (beside its partition's fence): a match whose deliveries
    began before names the last of them, as the record at its old key says."""
    keys = Keys(settings.namespace)
    fake_redis.hset(keys.legacy_webhook_order("h1", "m1"), mapping={"last": "5", "v5": "3"})
    hooks = Webhooks(fake_redis, keys, ServerKey(settings.secret_key))
    assert hooks.previous_version("h1", "m1", 7) == 5
    assert hooks.previous_version("h1", "m1", 9) == 7
    assert hooks.previous_version("h2", "m1", 7) is None, "another webhook's record"
