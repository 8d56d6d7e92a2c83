"""What the ledger reads of the event store to grant leases and settle them when their holder died."""

from __future__ import annotations

from typing import Any, Protocol

from eventsourcing.utils import get_topic

from bemtevi.domain.consultations import Consultation


class LeaseLog(Protocol):
    """What the ledger reads of the event store to grant and settle leases."""

    def position(self) -> int:
        """The log's last position now (a lease granted now is followed by all its consultations)."""
        ...

    def charged_under(self, lease_id: str, since: int) -> list[str]:
        """The consultations recorded under a lease after ``since`` and charged (found), by id."""
        ...


class StoredLeaseLog:
    """``LeaseLog`` on the application's event store: the consultations recorded after a lease's grant,
    read by topic in pages (a lease lives seconds, so the pages cover seconds of the log)."""

    PAGE = 2_000

    def __init__(self, app: Any) -> None:
        self._app = app
        self._topic = get_topic(Consultation.Recorded)

    def position(self) -> int:
        return int(self._app.recorder.max_notification_id() or 0)

    def charged_under(self, lease_id: str, since: int) -> list[str]:
        charged: list[str] = []
        start = since + 1
        # Only the events whose stored JSON names the lease are decoded (a recovery may read many seconds of
        # lookups, most of them other leases').
        mark = lease_id.encode()
        while True:
            page = self._app.recorder.select_notifications(start, self.PAGE, topics=[self._topic])
            for notification in page:
                if mark not in notification.state:
                    continue
                recorded = self._app.mapper.to_domain_event(notification)
                if getattr(recorded, "lease_id", None) == lease_id and recorded.credits > 0:
                    charged.append(str(recorded.originator_id))
            if len(page) < self.PAGE:
                return charged
            start = page[-1].id + 1
