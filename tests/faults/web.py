"""A small HTTP client on the standard library for the harness: one kept-alive connection, JSON in and out."""

from __future__ import annotations

import http.client
import json
import time
from typing import Any
from urllib.parse import urlencode


class NoAnswer(Exception):
    """The connection broke or timed out before an answer: the request may or may not have been handled."""


class Web:
    def __init__(self, port: int, timeout: float = 10.0):
        self.port, self.timeout = port, timeout
        self._connection: http.client.HTTPConnection | None = None

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        params: dict[str, Any] | None = None,
    ) -> tuple[int, Any, dict[str, str]]:
        """(status, the body as JSON or None, the headers); ``NoAnswer`` when none came."""
        headers = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if params:
            path = f"{path}?{urlencode(params)}"
        connection = self._connection or http.client.HTTPConnection(
            "127.0.0.1", self.port, timeout=self.timeout
        )
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException) as error:
            connection.close()
            self._connection = None
            raise NoAnswer(type(error).__name__) from error
        self._connection = None if response.will_close else connection
        try:
            answer = json.loads(raw) if raw else None
        except ValueError:
            answer = {"text": raw[:200].decode(errors="replace")}
        return response.status, answer, {k.title(): v for k, v in response.getheaders()}

    def get(self, path: str, attempts: int = 10, **kwargs: Any) -> Any:
        """The JSON body of a GET that must answer 200, asked again (a few times, bounded) when no answer or a
        503 came: a kept-alive connection the server had closed, a store still settling."""
        for attempt in range(attempts):
            try:
                status, answer, _ = self.request("GET", path, **kwargs)
            except NoAnswer:
                status, answer = 0, None
            if status == 200:
                return answer
            if status not in (0, 503) or attempt == attempts - 1:
                break
            time.sleep(0.2 * (attempt + 1))
        raise RuntimeError(f"GET {path}: {status} {answer}")

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
