"""Cluster mode's PostgreSQL database: created when missing, with the event store's tables made before any child
starts."""

from __future__ import annotations

from urllib.parse import urlparse, urlunparse

import psycopg

from bemtevi.commands.application import BemteviApplication
from bemtevi.infra.settings import Settings

CLUSTER_DATABASE = "bemtevi"


def prepare_event_store(database_url: str) -> None:
    """Create the event store's tables (events, snapshots, tracking) before any child starts: the relay, the
    workers and the first API process each create what is missing, and on a new database they raced
    (PostgreSQL's ``CREATE TABLE IF NOT EXISTS`` refuses a second creator meanwhile) and the relay died."""
    app = BemteviApplication(env=Settings(database_url=database_url).event_store_env())
    try:
        app.factory.tracking_recorder()
    finally:
        app.close()


def cluster_database(server_url: str, name: str = CLUSTER_DATABASE) -> str:
    """The URL of database ``name`` on ``server_url``'s server, created when missing."""
    with psycopg.connect(server_url, autocommit=True) as con:
        if con.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None:
            con.execute(f'CREATE DATABASE "{name}"')
    return urlunparse(urlparse(server_url)._replace(path=f"/{name}"))
