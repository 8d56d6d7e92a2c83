"""The Receita Federal's published CNPJ layout (the "Dicionário de Dados do Cadastro Nacional da Pessoa
Jurídica"): each file's columns in order, the code tables, which file a name is, and its members copied out
of their zips as UTF-8."""

from __future__ import annotations

import zipfile
from collections import deque
from collections.abc import Generator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

_COPY_CHUNK = 1 << 20
# A member's lines go to files of about this size (``extract``).
PIECE_BYTES = 64 << 20

# Column layouts, in file order (Dicionário de Dados do CNPJ).
LAYOUTS: dict[str, tuple[str, ...]] = {
    "empresas": (
        "cnpj_basico", "razao_social", "natureza_juridica", "qualificacao_responsavel", "capital_social",
        "porte_empresa", "ente_federativo",
    ),
    "estabelecimentos": (
        "cnpj_basico", "cnpj_ordem", "cnpj_dv", "identificador_matriz_filial", "nome_fantasia",
        "situacao_cadastral", "data_situacao_cadastral", "motivo_situacao_cadastral", "nome_cidade_exterior",
        "pais", "data_inicio_atividade", "cnae_fiscal_principal", "cnae_fiscal_secundaria", "tipo_logradouro",
        "logradouro", "numero", "complemento", "bairro", "cep", "uf", "municipio", "ddd_1", "telefone_1",
        "ddd_2", "telefone_2", "ddd_fax", "fax", "correio_eletronico", "situacao_especial",
        "data_situacao_especial",
    ),
    "socios": (
        "cnpj_basico", "identificador_socio", "nome_socio_razao_social", "cnpj_cpf_socio", "qualificacao_socio",
        "data_entrada_sociedade", "pais", "representante_legal", "nome_do_representante",
        "qualificacao_representante_legal", "faixa_etaria",
    ),
    "simples": (
        "cnpj_basico", "opcao_pelo_simples", "data_opcao_simples", "data_exclusao_simples", "opcao_mei",
        "data_opcao_mei", "data_exclusao_mei",
    ),
}  # fmt: skip
CODE_TABLES = ("cnaes", "municipios", "naturezas", "qualificacoes", "paises", "motivos")
CODE_LAYOUT = ("codigo", "descricao")
# File name prefix (lower case) → staging kind; "simples" before "socios" is irrelevant, prefixes differ.
_KINDS = tuple(LAYOUTS) + CODE_TABLES


def kind_of(name: str) -> str | None:
    """The staging kind of a published file, by its name (``K3241.K03200Y0.D40511.EMPRECSV`` names
    its members; the zips are named ``Empresas0.zip`` ... ``Cnaes.zip``)."""
    lowered = Path(name).name.lower()
    for kind in _KINDS:
        if lowered.startswith(kind):
            return kind
    return None


def members_of(directory: Path) -> list[tuple[Path, zipfile.ZipInfo, str]]:
    """The release's files in ``directory``: each zip member with its zip and kind, in name order."""
    found = []
    for path in sorted(directory.iterdir()):
        if path.suffix.lower() != ".zip" or kind_of(path.name) is None:
            continue
        with zipfile.ZipFile(path) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    found.append((path, info, kind_of(path.name) or ""))
    return found


def _line_end_outside_quotes(data: bytes, quoted: bool) -> int | None:
    """Where the first line of ``data`` that ends outside a quoted field ends (``quoted``: ``data`` starts inside
    one), or None. Every field is quoted and a quote inside one is doubled, so the count of quotes says."""
    start = 0
    while (newline := data.find(b"\n", start)) >= 0:
        quoted ^= bool(data.count(b'"', start, newline) & 1)
        if not quoted:
            return newline + 1
        start = newline + 1
    return None


def extract(zip_path: Path, info: zipfile.ZipInfo, stem: Path) -> list[Path]:
    """The member copied out beside ``stem`` (``<stem>-0.csv``, ``-1.csv``, ...), streamed in 1 MiB pieces and
    re-encoded as UTF-8 (DuckDB cannot read inside a zip; its Latin-1 reading now and then mixed up lines at its
    buffers' edges in members of some hundred megabytes, a good line refused). Latin-1 is a byte a character: any
    piece decodes alone. A new file starts at the first line end past ``PIECE_BYTES``: DuckDB's partitioned
    Parquet writer keeps a statement's rows until its end, and a member of a few hundred megabytes spilled them
    past the import's memory limit."""
    pieces: list[Path] = []
    sink = None
    try:
        with zipfile.ZipFile(zip_path) as archive, archive.open(info) as source:
            written, quoted = 0, False
            while chunk := source.read(_COPY_CHUNK):
                data = chunk.decode("latin-1").encode()
                if written + len(data) >= PIECE_BYTES and sink is not None:
                    cut = _line_end_outside_quotes(data, quoted)
                    if cut is not None:
                        head, data = data[:cut], data[cut:]
                        sink.write(head)
                        quoted, written = False, 0
                        sink.close()
                        sink = None
                if not data:
                    continue
                if sink is None:
                    pieces.append(stem.with_name(f"{stem.name}-{len(pieces)}.csv"))
                    sink = open(pieces[-1], "wb")  # noqa: SIM115 (closed at each piece's end)
                sink.write(data)
                written += len(data)
                quoted ^= bool(data.count(b'"') & 1)
    except BaseException:
        for piece in pieces:
            piece.unlink(missing_ok=True)
        raise
    finally:
        if sink is not None:
            sink.close()
    return pieces


def extracted(members: list[tuple[Path, zipfile.ZipInfo]], directory: Path) -> Generator[list[Path], None, None]:
    """Each member's pieces (``extract``) in ``directory``, in order; the next member is extracted on a thread
    while the caller reads this one (inflating and re-encoding was a third of the files' time, on one core while
    DuckDB's reader left the other idle at times). The caller removes each piece it is given; the ones it was
    not given yet are removed when the iterator is closed."""
    for left in directory.glob("member-*.csv"):  # extracted by a stopped run
        left.unlink()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cnpj-extract")
    pending: deque[tuple[Path, Future[list[Path]]]] = deque()
    try:
        for index, (zip_path, info) in enumerate(members):
            stem = directory / f"member-{index}"
            pending.append((stem, pool.submit(extract, zip_path, info, stem)))
            if len(pending) > 1:
                yield pending.popleft()[1].result()
        while pending:
            yield pending.popleft()[1].result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for stem, _ in pending:
            for piece in directory.glob(f"{stem.name}-*.csv"):
                piece.unlink()
