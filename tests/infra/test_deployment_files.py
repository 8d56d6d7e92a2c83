"""The deployment files under ops/ (systemd units, a Kubernetes manifest) run what `bemtevi cluster` runs on one
machine: every command they name is a real `bemtevi` command with real options, every setting they give is one
the processes read, each process is restarted when it ends, and the API is checked on its health route."""

from __future__ import annotations

import configparser
import re
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

from bemtevi.cli import app, worker_app
from bemtevi.infra.settings import Settings

OPS = Path(__file__).resolve().parents[2] / "ops"
UNITS = sorted((OPS / "systemd").glob("*.service"))
MANIFEST = OPS / "kubernetes" / "bemtevi.yaml"
WORKERS = {c.name for c in worker_app.registered_commands if c.name}


def check_command(argv: list[str]) -> None:
    """``argv`` (``bemtevi ...``) names a command of the CLI, with options it has."""
    assert Path(argv[0]).name == "bemtevi", argv
    command: Any = typer.main.get_command(app)  # typer's own click: groups known by their commands
    words = argv[1:]
    while hasattr(command, "commands") and words:
        name, words = words[0], words[1:]
        assert name in command.commands, f"no command {name!r} in {argv}"
        command = command.commands[name]
    assert not hasattr(command, "commands"), f"{argv} names a group, not a command"
    known = {opt for param in command.params for opt in param.opts}
    for word in words:
        if word.startswith("-"):
            assert word.split("=", 1)[0] in known, f"{argv}: {command.name} has no option {word}"
        else:
            assert any(p.param_type_name == "argument" for p in command.params), f"{argv}: no argument {word!r}"


def check_settings(names: list[str]) -> None:
    known = {"PORT"} | {f"BEMTEVI_{field.upper()}" for field in Settings.model_fields}
    assert set(names) <= known, set(names) - known


def unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text())
    return parser


def documents() -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(MANIFEST.read_text()) if d]


def pod_specs() -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d["spec"]["template"]["spec"] for d in documents() if d["kind"] == "Deployment"}


def test_every_unit_runs_a_real_command_and_is_restarted_when_it_ends() -> None:
    assert {p.name for p in UNITS} >= {
        "bemtevi-api@.service",
        "bemtevi-relay.service",
        "bemtevi-ledger@.service",
        "bemtevi-worker@.service",
    }
    text = "\n".join(p.read_text() for p in OPS.joinpath("systemd").iterdir())
    instances = set(re.findall(r"bemtevi-worker@(\w+)", text))
    assert instances == WORKERS - {"ledger"}, "every worker but the ledger's (a unit of its own) is named"
    for path in UNITS:
        service = unit(path)["Service"]
        assert service["Restart"] == "always", path.name
        argv = shlex.split(service["ExecStart"])
        if "%i" in argv:  # bemtevi-worker@NAME runs `bemtevi worker NAME`
            for name in instances:
                check_command([name if word == "%i" else word for word in argv])
        else:
            check_command(argv)
        assert unit(path)["Unit"]["StartLimitIntervalSec"] == "0", f"{path.name} gives up restarting"
    example = (OPS / "systemd" / "bemtevi.env.example").read_text()
    check_settings(re.findall(r"^(\w+)=", example, re.MULTILINE))


def test_the_manifest_runs_every_process_kind_restarted_and_checks_the_api_on_its_health_route() -> None:
    specs = pod_specs()
    commands = {name: spec["containers"][0]["command"] for name, spec in specs.items()}
    for argv in commands.values():
        check_command(argv)
    named = {tuple(argv[1:]) for argv in commands.values()}
    assert named == {("serve",), ("relay",)} | {("worker", name) for name in WORKERS}
    for name, spec in specs.items():
        assert spec["restartPolicy"] == "Always", name
    api = specs["bemtevi-api"]["containers"][0]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert api[probe]["httpGet"]["path"] == "/api/health", probe
    config = next(d for d in documents() if d["kind"] == "ConfigMap")
    check_settings(list(config["data"]))
    assert config["data"]["BEMTEVI_LEDGER"] == "kafka" and config["data"]["BEMTEVI_READ_FEED"] == "kafka"


def test_a_command_the_cli_does_not_have_is_refused() -> None:
    with pytest.raises(AssertionError):
        check_command(["bemtevi", "worker", "nosuch"])
    with pytest.raises(AssertionError):
        check_command(["bemtevi", "serve", "--no-such-option"])


@pytest.mark.process
@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_reads_every_unit_without_a_warning(tmp_path: Path) -> None:
    for path in (OPS / "systemd").iterdir():
        shutil.copy(path, tmp_path / path.name)
    names = ["bemtevi-api@1.service", "bemtevi-relay.service", "bemtevi-ledger@1.service", "bemtevi.target"]
    names += [f"bemtevi-worker@{name}.service" for name in sorted(WORKERS - {"ledger"})]
    verified = subprocess.run(
        ["systemd-analyze", "verify", "--man=no", *names], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    # The program's path is the installation's (absent here); anything else said is a mistake in a unit.
    said = [line for line in verified.stderr.splitlines() if "is not executable" not in line and line.strip()]
    assert said == [], said
