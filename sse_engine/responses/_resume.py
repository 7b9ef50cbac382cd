"""The reconnect request for a dropped Responses stream (``GET /responses/{id}?stream=true``)."""

from __future__ import annotations

import typing
from urllib.parse import quote, urlencode

import attrs

__all__ = ["ResumePlan", "RetrievePlan"]

#: Agent-run responses (``resp_run_<runId>``) can only be replayed from the start.
AGENT_RUN_PREFIX = "resp_run_"


@attrs.frozen
class ResumePlan:
    """What to send to pick a dropped stream up again, instead of a new POST.

    ``method``, ``path`` (relative to the API base, e.g. ``https://api.kindo.ai/v1``),
    ``query`` and ``headers`` describe the request; :meth:`url` joins them to a
    base URL. Incremental (``full_replay`` False): the server replays every
    event after ``starting_after``, the last ``sequence_number`` received, with
    continuous numbering. Full replay (``full_replay`` True): agent-run ids
    (``resp_run_*``) only support a replay from the start (``starting_after=0``,
    never a positive value), and a stream that carried no sequence numbers
    cannot say where it stopped (``starting_after`` is then omitted).
    ``Last-Event-ID`` carries the SSE ``id:`` on an incremental resume when
    the stream set one.
    """

    response_id: str
    starting_after: int | None
    last_event_id: str | None = None
    full_replay: bool = False

    @classmethod
    def after(
        cls, response_id: str, last_sequence_number: int | None, last_event_id: str | None
    ) -> ResumePlan:
        """The plan for a stream of ``response_id`` cut after ``last_sequence_number``."""
        if response_id.startswith(AGENT_RUN_PREFIX):
            return cls(response_id, 0, None, full_replay=True)
        if last_sequence_number is None or last_sequence_number < 0:
            return cls(response_id, None, None, full_replay=True)
        return cls(response_id, last_sequence_number, last_event_id or None)

    @property
    def method(self) -> str:
        return "GET"

    @property
    def path(self) -> str:
        """``/responses/{id}``, relative to the API base URL."""
        return _path(self.response_id)

    @property
    def query(self) -> dict[str, str]:
        """``{"stream": "true", "starting_after": "N"}`` (no ``starting_after`` when unknown)."""
        if self.starting_after is None:
            return {"stream": "true"}
        return {"stream": "true", "starting_after": str(self.starting_after)}

    @property
    def headers(self) -> dict[str, str]:
        """``{"Last-Event-ID": ...}`` when the stream set an SSE id, else empty."""
        return {} if self.last_event_id is None else {"Last-Event-ID": self.last_event_id}

    def url(self, base_url: str) -> str:
        """The full URL: ``plan.url("https://api.kindo.ai/v1")``."""
        return f"{base_url.rstrip('/')}{self.path}?{urlencode(self.query)}"

    def retrieve(self) -> RetrievePlan:
        """The plain GET for the final response object, for when a resume is no use.

        Past the resume window a streamed resume gives only the final items
        (or is refused); the final object is fetched without ``stream``, and
        :meth:`ResponsesLane.load` takes it. Same shape as this plan:
        ``method``, ``path``, ``query``, ``headers``, ``url(base_url)``.
        """
        return RetrievePlan(self.response_id)


@attrs.frozen
class RetrievePlan:
    """The plain ``GET {base}/responses/{id}`` for a response's final object (not streamed).

    Built by :meth:`ResumePlan.retrieve`; ``method``, ``path``, ``query`` (empty)
    and ``headers`` (empty) describe the request like a :class:`ResumePlan`,
    and ``url(base_url)`` joins them. Hand the JSON body to
    :meth:`ResponsesLane.load`.
    """

    response_id: str
    method: typing.ClassVar[str] = "GET"

    @property
    def path(self) -> str:
        """``/responses/{id}``, relative to the API base URL."""
        return _path(self.response_id)

    @property
    def query(self) -> dict[str, str]:
        """Empty: no ``stream``, no ``starting_after``."""
        return {}

    @property
    def headers(self) -> dict[str, str]:
        """Empty: a plain GET needs only the client's own headers (the API key)."""
        return {}

    def url(self, base_url: str) -> str:
        """The full URL: ``retrieve.url("https://api.kindo.ai/v1")``."""
        return f"{base_url.rstrip('/')}{self.path}"


def _path(response_id: str) -> str:
    return f"/responses/{quote(response_id, safe='')}"
