"""The ``bemtevi`` command line: serve, cluster, relay, worker NAME, demo-data, rebuild-projections, create-admin,
openapi."""

from __future__ import annotations

import faulthandler
import logging
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from bemtevi.infra.process_tuning import settle_process
from bemtevi.infra.settings import Settings

if TYPE_CHECKING:
    from bemtevi.streams.workers import StreamWorker

app = typer.Typer(help="Bemtevi: consultas e enriquecimento de dados.", no_args_is_help=True)
# Cluster mode's stream processors, one command per worker (`bemtevi worker NAME`); `bemtevi cluster` starts
# every command registered here.
worker_app = typer.Typer(help="Cluster mode's workers (faust-streaming agents over Kafka).", no_args_is_help=True)
app.add_typer(worker_app, name="worker")


def _ensure_dataset(settings: Settings) -> None:
    from bemtevi.infra.demo_data import generate_demo_dataset

    path = settings.demo_dataset_path
    if path.exists():
        return
    typer.echo(f"Generating the demo dataset ({settings.demo_people:,} people, {settings.demo_companies:,} companies)…")
    summary = generate_demo_dataset(path, settings.demo_people, settings.demo_companies, settings.demo_seed)
    typer.echo(f"Demo dataset ready in {summary.seconds:.1f} s.")


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Address to bind (default BEMTEVI_HOST or 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default PORT or 8000)")] = None,
    fd: Annotated[
        int | None, typer.Option(help="Serve on this inherited listening socket instead of binding (bemtevi cluster)")
    ] = None,
    ready_fd: Annotated[
        int | None, typer.Option(help="Write a line to this inherited pipe once serving, then close it")
    ] = None,
    reuse_port: Annotated[
        bool,
        typer.Option(
            "--reuse-port",
            help="Bind with SO_REUSEPORT, once built: several processes share the address, the kernel spreading "
            "new connections over them (bemtevi cluster; two systemd units on one machine)",
        ),
    ] = False,
) -> None:
    """Start the whole product (API, projector and web app) at one address."""
    import socket
    import sys

    import uvicorn

    from bemtevi.api.app import closes_on_shutdown, create_app
    from bemtevi.api.server_protocol import CoalescingHttpToolsProtocol
    from bemtevi.bootstrap import build_platform

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # `kill -USR1 <pid>` writes every thread's stack to the log: what a server that stopped answering is doing.
    faulthandler.register(signal.SIGUSR1, all_threads=True)
    settings = Settings()
    if host:
        settings.host = host
    if port:
        settings.port = port
    _ensure_dataset(settings)
    platform = build_platform(settings)
    result = platform.bootstrap_result
    if result is not None and result.created:
        typer.echo(f"Super-admin created: {result.admin_email}")
        if result.generated_password:
            typer.echo(f"Generated password (shown once): {result.generated_password}")
    settle_process()
    sockets = None
    if fd is not None:
        # Several API processes on one address: each accepts from the socket the supervisor bound.
        sockets = [socket.socket(fileno=fd)]
    elif reuse_port:
        # Several API processes on one address, each with a socket of its own bound only now that it can serve:
        # a process starting again (after a crash) takes no share of new connections while it builds itself.
        sockets = [socket.create_server((settings.host, settings.port), backlog=2048, reuse_port=True)]
    else:
        typer.echo(f"Bemtevi at http://{settings.host}:{settings.port}")
    # uvicorn's access log off: the app writes its own structured one (bemtevi.api.access_log,
    # BEMTEVI_ACCESS_LOG), with the tenant and without query strings. No Server header.
    config = uvicorn.Config(
        closes_on_shutdown(create_app(platform), platform, ready_fd),
        host=settings.host,
        port=settings.port,
        log_level="warning",
        access_log=False,
        server_header=False,
        # Clients and proxies keep idle connections to reuse: a server that closed one first (uvicorn's 5 s) races
        # the request sent on it, which then fails with "connection reset". Longer than a proxy's usual 60 s.
        timeout_keep_alive=75,
        # A response's status line, headers and body in one write (bemtevi.api.server_protocol).
        http=CoalescingHttpToolsProtocol,
    )
    server = uvicorn.Server(config)
    try:
        server.run(sockets=sockets)
    except KeyboardInterrupt:  # uvicorn raises SIGINT again once it has stopped
        pass
    finally:
        platform.close()
    if not server.started:
        sys.exit(3)  # uvicorn's code for a server that could not start


@app.command()
def relay() -> None:
    """Publish the event log to Kafka (cluster mode) from the stored position, until SIGINT or SIGTERM."""
    import threading

    from bemtevi.bootstrap.workers import build_relay

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("kafka").setLevel(logging.WARNING)
    settings = Settings()
    try:
        follower = build_relay(settings)
    except ValueError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(2) from e
    settle_process()
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    follower.start()
    typer.echo(
        f"Relaying the event log to Kafka topic {follower.topic} at {settings.kafka_bootstrap} "
        f"after position {follower.position}"
    )
    try:
        while not stop.wait(1.0):
            pass
    finally:
        # The page in flight is acknowledged and its position stored before the process ends.
        follower.stop()
        follower.app.close()
    typer.echo(f"Relay stopped after position {follower.position} ({follower.rounds} rounds that relayed events)")


def run_worker_command(build: Callable[[Settings], StreamWorker]) -> None:
    """What every `bemtevi worker NAME` does: JSON log lines on stderr, the worker built from the settings,
    run until SIGTERM or SIGINT, then closed."""
    from bemtevi.streams.workers import json_logging, run_worker

    json_logging()
    try:
        worker = build(Settings())
    except ValueError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(2) from e
    settle_process()
    run_worker(worker)


@worker_app.command("mailer")
def worker_mailer() -> None:
    """Deliver queued mails from the relay's Kafka topic (cluster mode; the servers run BEMTEVI_MAILER=worker)."""
    from bemtevi.bootstrap.workers import build_mailer_worker

    run_worker_command(build_mailer_worker)


@app.command()
def cluster(
    host: Annotated[str | None, typer.Option(help="Address to bind (default BEMTEVI_HOST or 127.0.0.1)")] = None,
    port: Annotated[int | None, typer.Option(help="Port (default PORT or 8000)")] = None,
    api_processes: Annotated[int, typer.Option(help="API processes sharing the address")] = 2,
) -> None:
    """Cluster mode on this machine: PostgreSQL, a Kafka broker, the relay, the workers and API processes
    on one address, until Ctrl-C or SIGTERM (then everything stops, in order)."""
    from bemtevi.cluster.supervisor import ClusterSupervisor

    settings = Settings()
    if host:
        settings.host = host
    if port:
        settings.port = port
    _ensure_dataset(settings)
    supervisor = ClusterSupervisor(
        settings, workers=[c.name for c in worker_app.registered_commands if c.name], api_processes=api_processes
    )
    raise typer.Exit(supervisor.run())


@worker_app.command("enrichment")
def worker_enrichment() -> None:
    """Run submitted batches from the relay's Kafka topic (cluster mode; the servers run BEMTEVI_ENRICHMENT=worker)."""
    from bemtevi.bootstrap.workers import build_enrichment_worker

    run_worker_command(build_enrichment_worker)


@worker_app.command("ledger")
def worker_ledger() -> None:
    """Decide credit requests from Kafka topic bemtevi.ledger for the partitions this worker owns, until SIGTERM."""
    from bemtevi.streams.ledger_worker import LedgerWorker
    from bemtevi.streams.workers import json_logging

    json_logging()
    try:
        worker = LedgerWorker(Settings())
    except ValueError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(2) from e
    settle_process()
    worker.run()


@app.command("demo-data")
def demo_data(
    people: Annotated[int | None, typer.Option(help="People to generate")] = None,
    companies: Annotated[int | None, typer.Option(help="Companies to generate")] = None,
    seed: Annotated[int | None, typer.Option(help="Random seed (same seed, same data)")] = None,
    path: Annotated[Path | None, typer.Option(help="Output DuckDB file")] = None,
) -> None:
    """Generate the deterministic local dataset the local supplier answers from."""
    from bemtevi.infra.demo_data import generate_demo_dataset

    settings = Settings()
    summary = generate_demo_dataset(
        path or settings.demo_dataset_path,
        people if people is not None else settings.demo_people,
        companies if companies is not None else settings.demo_companies,
        seed if seed is not None else settings.demo_seed,
    )
    typer.echo(
        f"{summary.people:,} people and {summary.companies:,} companies in {summary.seconds:.1f} s → {summary.path}"
    )


@app.command("import-cnpj")
def import_cnpj_command(
    directory: Annotated[Path, typer.Argument(help="One monthly release's zip files")],
    release: Annotated[str | None, typer.Option(help="Release name (default: the folder's name)")] = None,
) -> None:
    """Import the Receita Federal's open CNPJ data into the local dataset, BEMTEVI_DATASET_PATH (resumable)."""
    from bemtevi.infra.receita import import_cnpj

    typer.echo(import_cnpj(directory, Settings().demo_dataset_path, release, progress=typer.echo).report())


@app.command("vendor-simulator")
def vendor_simulator(
    port: Annotated[int, typer.Option(help="Port to listen on (loopback)")] = 8900,
    host: Annotated[str, typer.Option(help="Address to bind")] = "127.0.0.1",
    latency_ms: Annotated[float, typer.Option(help="Delay before every answer")] = 0.0,
    error_rate: Annotated[float, typer.Option(help="Share of requests answered HTTP 503")] = 0.0,
    timeout_rate: Annotated[float, typer.Option(help="Share of requests never answered in time")] = 0.0,
    hang_seconds: Annotated[float, typer.Option(help="How long an unanswered request hangs")] = 30.0,
    malformed_rate: Annotated[float, typer.Option(help="Share of answers cut in the middle (not JSON)")] = 0.0,
    partial_rate: Annotated[float, typer.Option(help="Share of answers with only the name and document")] = 0.0,
    slow_body_rate: Annotated[float, typer.Option(help="Share of answers sent in slow chunks")] = 0.0,
    slow_body_ms: Annotated[float, typer.Option(help="Pause between the chunks of a slow answer")] = 200.0,
    authorization: Annotated[str, typer.Option(help="Authorization a request must carry (empty: any)")] = "",
) -> None:
    """A JSON data vendor on loopback, for trying HTTP suppliers, tests and benches (not for production)."""
    from bemtevi.infra.suppliers.simulator import SimulatorConfig, serve

    config = SimulatorConfig(
        latency_ms=latency_ms,
        error_rate=error_rate,
        timeout_rate=timeout_rate,
        hang_seconds=hang_seconds,
        malformed_rate=malformed_rate,
        partial_rate=partial_rate,
        slow_body_rate=slow_body_rate,
        slow_body_ms=slow_body_ms,
        expected_authorization=authorization,
    )
    typer.echo(f"vendor simulator on http://{host}:{port} (POST /__control to change faults, GET /__stats)")
    serve(config, host=host, port=port)


@app.command("rebuild-projections")
def rebuild_projections() -> None:
    """Drop the read models and rebuild them from the whole event log (server must be stopped)."""
    from bemtevi.bootstrap import build_platform

    settings = Settings()
    if settings.read_feed == "kafka":
        typer.echo(
            "With BEMTEVI_READ_FEED=kafka each API process keeps its own replica (var/read-models-<n>.duckdb): "
            "stop the process and delete its file; it is rebuilt from the Kafka topic when the process starts.",
            err=True,
        )
        raise typer.Exit(1)
    try:
        platform = build_platform(settings, supplier=_NoSupplier(), start_projector=False, bootstrap=False)
    except RuntimeError as e:
        typer.echo(str(e), err=True)
        raise typer.Exit(1) from e
    try:
        started = time.perf_counter()
        count = platform.projector.rebuild()
        elapsed = time.perf_counter() - started
        typer.echo(f"Rebuilt the read models from {count:,} events in {elapsed:.1f} s.")
    finally:
        platform.close()


@app.command("create-admin")
def create_admin(
    email: Annotated[str, typer.Option(help="E-mail of the new super-admin")],
    name: Annotated[str, typer.Option(help="Full name")] = "Administrador",
    password: Annotated[str | None, typer.Option(help="Password (generated and printed when absent)")] = None,
) -> None:
    """Create a super-admin in the default group."""
    from bemtevi.bootstrap import build_platform
    from bemtevi.domain.errors import DomainError
    from bemtevi.domain.passwords import generate_password
    from bemtevi.domain.principals import ROOT_GROUP_ID, SYSTEM
    from bemtevi.domain.users import Role

    settings = Settings()
    platform = build_platform(settings, supplier=_NoSupplier(), start_projector=False)
    generated = password is None
    password = password or generate_password()
    try:
        platform.identity.register_user(
            SYSTEM,
            group_id=ROOT_GROUP_ID,
            name=name,
            email=email,
            password=password,
            role=Role.SUPER_ADMIN,
            strict_email=False,
        )
    except DomainError as e:
        typer.echo(e.message, err=True)
        raise typer.Exit(1) from e
    finally:
        platform.close()
    typer.echo(f"Super-admin created: {email}")
    if generated:
        typer.echo(f"Generated password (shown once): {password}")


@app.command()
def openapi(
    output: Annotated[Path | None, typer.Option(help="Write the schema to this file, not the standard output")] = None,
) -> None:
    """Print the API's OpenAPI schema (JSON) without starting anything: the web app's client is generated from it."""
    import json

    from bemtevi.api.app import openapi_document

    text = json.dumps(openapi_document(), ensure_ascii=False, indent=2, sort_keys=True) + "\n"
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.write_text(text, encoding="utf-8")
        typer.echo(f"OpenAPI schema written to {output}")


class _NoSupplier:
    """Commands that never look anything up do not open the dataset."""

    name = "none"
    answers_at_once = True

    def lookup(self, kind: str, number: str) -> None:
        raise RuntimeError("no supplier in this command")


if __name__ == "__main__":
    app()
