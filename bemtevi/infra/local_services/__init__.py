"""The PostgreSQL server (``postgres``) and the Apache Kafka broker (``kafka``) the project starts for itself.

`make test` (through the test fixtures), `make cluster` and the benches call these, so that a machine with
nothing running is enough. Production never does: it points the same code at existing servers with
`BEMTEVI_DATABASE_URL` and `BEMTEVI_KAFKA_BOOTSTRAP`.

- PostgreSQL: the machine's own binaries (Debian's `postgresql` package, which the Makefile installs when
  absent), a cluster of the project's own in its own folder and on its own port, trust on loopback only, so no
  other cluster or its data is touched. Starting is idempotent and guarded by a file lock; the server is left
  running for the next run (starting it again costs about a second).
- Kafka: the broker's jars, pinned in `ops/kafka/pom.xml`, copied once by Maven into a cache folder; each
  `KafkaBroker` is one KRaft node (broker and controller) on free loopback ports with its data in a temporary
  folder, removed on stop; `restart()` stops it and starts it again on the same ports with the same data. Given
  a `directory` (`bemtevi cluster` keeps one under var/), it formats it once and later starts keep its topics,
  records and consumer offsets (`stop(keep_data=True)`), on new free ports.

`python -m bemtevi.infra.local_services postgres|stop|kafka-jars` takes the same steps by hand (``__main__``).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]


class LocalServiceError(RuntimeError):
    """A local server could not be installed or started; the message says what to do."""


def services_dir() -> Path:
    """Where the project's local servers keep their state: outside any checkout, so that every clone shares one
    PostgreSQL cluster and one jar cache, and under /var/tmp, which the unprivileged postgres account can reach."""
    configured = os.environ.get("BEMTEVI_SERVICES_DIR")
    path = Path(configured) if configured else Path("/var/tmp") / f"bemtevi-services-{os.getuid()}"
    path.mkdir(parents=True, exist_ok=True)
    path.chmod(0o755)
    return path


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Two test runs starting at once must not both run initdb or pg_ctl start."""
    with open(path, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
