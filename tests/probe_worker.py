"""A cluster worker reduced to its runtime, for the tests (`python tests/probe_worker.py BOOTSTRAP TOPIC OUT VAR`):
``bemtevi.streams.workers``' faust app and process with one agent that appends each record of TOPIC to OUT. Unlike
the product's workers it does not create its topic first, so a test can start it before the topic exists."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from bemtevi.infra.settings import Settings
from bemtevi.streams.workers import StreamWorker, json_logging, run_worker, worker_app


def main() -> None:
    bootstrap, topic, out, var = sys.argv[1:5]
    json_logging()
    app = worker_app(f"probe-{topic}", Settings(var_dir=Path(var), kafka_bootstrap=bootstrap))
    records = app.topic(topic, key_type=bytes, value_type=bytes, key_serializer="raw", value_serializer="raw")

    async def agent(stream: Any) -> None:
        async for value in stream:
            with open(out, "ab") as written:
                written.write(value + b"\n")

    app.agent(records, name="probe")(agent)
    run_worker(StreamWorker(app, lambda: None))


if __name__ == "__main__":
    main()
