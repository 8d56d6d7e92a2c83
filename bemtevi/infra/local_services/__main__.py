"""`python -m bemtevi.infra.local_services postgres|stop|kafka-jars`: the same steps the tests take, by hand."""

from __future__ import annotations

from bemtevi.infra.local_services.kafka import ensure_kafka_jars
from bemtevi.infra.local_services.postgres import ensure_postgres, stop_postgres


def main(argv: list[str] | None = None) -> None:
    """`python -m bemtevi.infra.local_services postgres|stop|kafka-jars`: the same steps the tests take, by hand."""
    import sys

    command = (argv if argv is not None else sys.argv[1:]) or ["postgres"]
    if command[0] == "postgres":
        print(ensure_postgres())
    elif command[0] == "stop":
        print("stopped" if stop_postgres() else "not running")
    elif command[0] == "kafka-jars":
        print(ensure_kafka_jars())
    else:
        raise SystemExit("usage: python -m bemtevi.infra.local_services [postgres|stop|kafka-jars]")


if __name__ == "__main__":
    main()
