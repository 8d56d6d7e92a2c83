"""A vendor simulator on loopback: a small ASGI app answering like a JSON data vendor.

Tests, benches and ``bemtevi vendor-simulator`` start it. Any path answers a lookup of the last run
of 11 or 14 digits in it (or in a POST body's ``documento``/``document``), with deterministic pt-BR
data generated from the document. Its behaviour (``SimulatorConfig``) is set at start and may be
changed while it runs (``POST /__control`` with a JSON object of the fields); ``GET /__stats``
answers how many requests it served, by outcome. Faults, each a fraction of requests (0..1):

- ``error_rate``: HTTP 503;  ``fail_next``: the next N requests answer 503 (deterministic retries);
- ``timeout_rate``: no answer for ``hang_seconds``;
- ``malformed_rate``: a body cut in the middle (not JSON);  ``partial_rate``: valid JSON with only the
  name and the document (every other section missing);
- ``slow_body_rate``: the body sent in small chunks, ``slow_body_ms`` apart;
- ``latency_ms``: every answer waits this long first;  ``not_found``: documents answered 404;
- ``in_flight_max`` in the stats: the most requests it had in flight at once.
- ``expected_authorization``: when set, a request whose Authorization header (or URL path) does
  not carry it answers 401.
- ``section_patch``: values merged into every found answer's data section (``pessoa``/``empresa``): a
  vendor's odd values, e.g. ``{"nascimento": "01/01/99999999999999999999"}``;
- ``redirect_to``: when set, every lookup answers ``302 Location: <redirect_to>``.
"""

from __future__ import annotations

import asyncio
import random
import re
import socket
import threading
from collections import Counter
from dataclasses import asdict, dataclass, field, fields
from typing import Any

import orjson
import uvicorn

_DIGITS = re.compile(r"(\d{14}|\d{11})(?!\d)")
_FIRST = ("Ana", "Bruno", "Carla", "Diego", "Eduarda", "Felipe", "Gabriela", "Heitor", "Isabela", "João")
_LAST = ("Silva", "Souza", "Oliveira", "Santos", "Pereira", "Lima", "Carvalho", "Ferreira", "Rodrigues", "Almeida")
_CITIES = (
    ("São Paulo", "SP"),
    ("Rio de Janeiro", "RJ"),
    ("Belo Horizonte", "MG"),
    ("Recife", "PE"),
    ("Curitiba", "PR"),
)


@dataclass
class SimulatorConfig:
    latency_ms: float = 0.0
    error_rate: float = 0.0
    timeout_rate: float = 0.0
    hang_seconds: float = 30.0
    malformed_rate: float = 0.0
    partial_rate: float = 0.0
    slow_body_rate: float = 0.0
    slow_body_ms: float = 200.0
    fail_next: int = 0
    not_found: list[str] = field(default_factory=list)
    expected_authorization: str = ""
    section_patch: dict[str, Any] = field(default_factory=dict)
    redirect_to: str = ""
    seed: int = 17

    def update(self, values: dict[str, Any]) -> None:
        names = {f.name for f in fields(self)}
        for key, value in values.items():
            if key in names:
                setattr(self, key, value)


def person(cpf: str) -> dict[str, Any]:
    rng = random.Random(int(cpf))
    city, uf = rng.choice(_CITIES)
    year = rng.randint(1940, 2004)
    return {
        "cpf": cpf,
        "nome": f"{rng.choice(_FIRST)} {rng.choice(_LAST)} {rng.choice(_LAST)}",
        "sexo": rng.choice("MF"),
        "nascimento": f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{year}",
        "signo": rng.choice(("Áries", "Touro", "Gêmeos", "Leão", "Virgem")),
        "mae": f"{rng.choice(_FIRST[::2])} {rng.choice(_LAST)}",
        "pai": f"{rng.choice(_FIRST[1::2])} {rng.choice(_LAST)}",
        "estado_civil": rng.choice(("Solteiro(a)", "Casado(a)", "Divorciado(a)")),
        "escolaridade": rng.choice(("Ensino médio", "Superior completo", "Pós-graduação")),
        "profissao": rng.choice(("Analista", "Professor(a)", "Engenheiro(a)", "Comerciante")),
        "renda": round(rng.uniform(1500, 25000), 2),
        "classe_social": rng.choice("ABCDE"),
        "score": rng.randint(100, 999),
        "telefones": [{"numero": f"11{rng.randint(900000000, 999999999)}", "tipo": "celular"}],
        "emails": [f"contato{rng.randint(1, 999)}@exemplo.com.br"],
        "enderecos": [
            {
                "logradouro": f"Rua {rng.choice(_LAST)}",
                "numero": str(rng.randint(1, 2000)),
                "complemento": "",
                "bairro": "Centro",
                "cidade": city,
                "uf": uf,
                "cep": f"{rng.randint(1000000, 99999999):08d}",
            }
        ],
        "sociedades": [],
        "protestos": [],
        "pendencias": [],
        "ccf": rng.randint(0, 2),
        "obito": None,
    }


def company(cnpj: str) -> dict[str, Any]:
    rng = random.Random(int(cnpj))
    city, uf = rng.choice(_CITIES)
    name = f"{rng.choice(_LAST)} & {rng.choice(_LAST)}"
    return {
        "cnpj": cnpj,
        "razao_social": f"{name} Comércio Ltda",
        "nome_fantasia": name,
        "abertura": f"{rng.randint(1, 28):02d}/{rng.randint(1, 12):02d}/{rng.randint(1970, 2022)}",
        "situacao": "ATIVA",
        "natureza_juridica": "Sociedade Empresária Limitada",
        "cnae": {"codigo": "4751-2/01", "descricao": "Comércio varejista de informática"},
        "porte": rng.choice(("ME", "EPP", "DEMAIS")),
        "capital_social": rng.randint(10, 5000) * 1000,
        "endereco": {
            "logradouro": f"Avenida {rng.choice(_LAST)}",
            "numero": str(rng.randint(1, 3000)),
            "complemento": "",
            "bairro": "Centro",
            "cidade": city,
            "uf": uf,
            "cep": f"{rng.randint(1000000, 99999999):08d}",
        },
        "telefones": [{"numero": f"11{rng.randint(30000000, 39999999)}", "tipo": "fixo"}],
        "emails": [f"contato@{rng.choice(_LAST).lower()}.com.br"],
        "socios": [
            {
                "nome": f"{rng.choice(_FIRST)} {rng.choice(_LAST)}",
                "documento": "***",
                "qualificacao": "Sócio-Administrador",
                "desde": "01/01/2015",
            }
        ],
        "score": rng.randint(100, 999),
        "protestos": [],
    }


class VendorSimulator:
    """The ASGI app."""

    def __init__(self, config: SimulatorConfig | None = None) -> None:
        self.config = config or SimulatorConfig()
        self.stats: Counter[str] = Counter()
        self._rng = random.Random(self.config.seed)
        self._in_flight = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        path: str = scope["path"]
        if path == "/__control" and scope["method"] == "POST":
            self.config.update(orjson.loads(body or b"{}"))
            self._rng = random.Random(self.config.seed)
            await _answer(send, 200, orjson.dumps(asdict(self.config)))
            return
        if path == "/__stats":
            await _answer(send, 200, orjson.dumps(dict(self.stats)))
            return
        self._in_flight += 1
        self.stats["in_flight_max"] = max(self.stats["in_flight_max"], self._in_flight)
        try:
            await self._lookup(scope, path, body, send)
        finally:
            self._in_flight -= 1

    def _roll(self, rate: float) -> bool:
        return rate > 0 and self._rng.random() < rate

    async def _lookup(self, scope: dict[str, Any], path: str, body: bytes, send: Any) -> None:
        config = self.config
        self.stats["requests"] += 1
        if config.latency_ms:
            await asyncio.sleep(config.latency_ms / 1000)
        if config.expected_authorization:
            headers = dict(scope["headers"])
            given = headers.get(b"authorization", b"").decode()
            if config.expected_authorization not in (given, *path.split("/")):
                self.stats["unauthorized"] += 1
                await _answer(send, 401, b'{"erro": "nao autorizado"}')
                return
        if config.fail_next > 0:
            config.fail_next -= 1
            self.stats["error"] += 1
            await _answer(send, 503, b'{"erro": "indisponivel"}')
            return
        if self._roll(config.error_rate):
            self.stats["error"] += 1
            await _answer(send, 503, b'{"erro": "indisponivel"}')
            return
        if self._roll(config.timeout_rate):
            self.stats["timeout"] += 1
            await asyncio.sleep(config.hang_seconds)
            await _answer(send, 504, b"{}")
            return
        if config.redirect_to:
            self.stats["redirect"] += 1
            moved = [*_headers(0), (b"location", config.redirect_to.encode())]
            await send({"type": "http.response.start", "status": 302, "headers": moved})
            await send({"type": "http.response.body", "body": b""})
            return
        number = _document(path, body)
        if number is None:
            self.stats["bad_request"] += 1
            await _answer(send, 400, b'{"erro": "documento ausente"}')
            return
        if number in config.not_found:
            self.stats["not_found"] += 1
            await _answer(send, 404, b'{"status": "nao_encontrado"}')
            return
        section = {"pessoa": person(number)} if len(number) == 11 else {"empresa": company(number)}
        for data in section.values():
            data.update(config.section_patch)
        payload = orjson.dumps({"status": "ok", **section})
        if self._roll(config.malformed_rate):
            self.stats["malformed"] += 1
            await _answer(send, 200, payload[: len(payload) // 2])
            return
        if self._roll(config.partial_rate):
            self.stats["partial"] += 1
            key, data = next(iter(section.items()))
            kept = {k: data[k] for k in ("cpf", "cnpj", "nome", "razao_social") if k in data}
            await _answer(send, 200, orjson.dumps({"status": "ok", key: kept}))
            return
        if self._roll(config.slow_body_rate):
            self.stats["slow_body"] += 1
            await send({"type": "http.response.start", "status": 200, "headers": _headers(len(payload))})
            step = max(1, len(payload) // 4)
            for start in range(0, len(payload), step):
                await send({"type": "http.response.body", "body": payload[start : start + step], "more_body": True})
                await asyncio.sleep(config.slow_body_ms / 1000)
            await send({"type": "http.response.body", "body": b""})
            return
        self.stats["ok"] += 1
        await _answer(send, 200, payload)


def _document(path: str, body: bytes) -> str | None:
    if body:
        try:
            data = orjson.loads(body)
        except orjson.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            for key in ("documento", "document", "cpf", "cnpj"):
                value = data.get(key)
                if isinstance(value, str) and _DIGITS.fullmatch(value):
                    return value
    found = _DIGITS.findall(path)
    return found[-1] if found else None


def _headers(length: int) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"application/json"), (b"content-length", str(length).encode())]


async def _answer(send: Any, status: int, body: bytes) -> None:
    await send({"type": "http.response.start", "status": status, "headers": _headers(len(body))})
    await send({"type": "http.response.body", "body": body})


class _PromptServer(uvicorn.Server):
    """uvicorn's server, stopped as soon as asked: its own loop looks for ``should_exit`` every 0.1 s and its
    shutdown then waits another 0.1 s for connections to close, a fifth of a second for every test that stops a
    simulator. Nothing a simulator answers is kept: connections are cut, not drained."""

    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.stopping = asyncio.Event()  # set on the server's loop (``call_soon_threadsafe``)

    async def main_loop(self) -> None:
        await self.on_tick(0)  # the default headers
        await self.stopping.wait()

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for server in self.servers:
            server.close()
        for connection in list(self.server_state.connections):
            connection.shutdown()


class SimulatorServer:
    """The simulator served by uvicorn on a loopback port, in a thread of this process."""

    def __init__(self, config: SimulatorConfig | None = None, port: int = 0) -> None:
        self.app = VendorSimulator(config)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        self._socket = sock
        self.port: int = sock.getsockname()[1]
        self._server = _PromptServer(
            uvicorn.Config(self.app, log_level="warning", access_log=False, lifespan="off", loop="asyncio")
        )
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread = threading.Thread(target=self._serve, name="vendor-simulator", daemon=True)

    @property
    def config(self) -> SimulatorConfig:
        return self.app.config

    def _serve(self) -> None:
        with asyncio.Runner() as runner:  # its end cancels what is left (a request still hanging)
            self._loop = runner.get_loop()
            runner.run(self._server.serve(sockets=[self._socket]))

    def __enter__(self) -> SimulatorServer:
        self._thread.start()
        while not self._server.started:
            if not self._thread.is_alive():
                raise RuntimeError("the vendor simulator did not start")
            threading.Event().wait(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        # Not waiting for requests in flight: one left hanging (``timeout_rate``) would hold the caller for the rest
        # of its ``hang_seconds``.
        if self._loop is not None:  # set before the server starts, which ``__enter__`` waited for
            self._loop.call_soon_threadsafe(self._server.stopping.set)
        self._thread.join(timeout=10)
        self._socket.close()


def serve(config: SimulatorConfig, host: str = "127.0.0.1", port: int = 8900) -> None:
    """Serve the simulator in the foreground (``bemtevi vendor-simulator``)."""
    uvicorn.run(VendorSimulator(config), host=host, port=port, log_level="warning", access_log=False)
