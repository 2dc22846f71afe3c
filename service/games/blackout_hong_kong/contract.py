"""What the game shows, as JSON Schemas (``contract.json``): its view, each event's data, its result
and its content pack. ``service.http.openapi_components`` builds the game's part of openapi.yaml from them."""

from pathlib import Path

from service.games.protocol import Contract

CONTRACT = Contract.load(Path(__file__).with_name("contract.json"))
