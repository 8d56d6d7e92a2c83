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


def extract(zip_path: Path, info: zipfile.ZipInfo, target: Path) -> Path:
    """The member copied to ``target``, streamed in 1 MiB pieces and re-encoded as UTF-8 (DuckDB cannot read
    inside a zip; its Latin-1 reading now and then mixed up lines at its buffers' edges in members of some
    hundred megabytes, a good line refused). Latin-1 is a byte a character: any piece decodes alone."""
    with zipfile.ZipFile(zip_path) as archive, archive.open(info) as source, open(target, "wb") as sink:
        while chunk := source.read(_COPY_CHUNK):
            sink.write(chunk.decode("latin-1").encode())
    return target


def extracted(members: list[tuple[Path, zipfile.ZipInfo]], directory: Path) -> Generator[Path, None, None]:
    """Each member's extracted file in ``directory``, in order; the next member is extracted on a thread while
    the caller reads this one (inflating and re-encoding was a third of the files' time, on one core while
    DuckDB's reader left the other idle at times). The caller removes each file it is given; the ones it was
    not given yet are removed when the iterator is closed."""
    for left in directory.glob("member-*.csv"):  # extracted by a stopped run
        left.unlink()
    pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cnpj-extract")
    pending: deque[tuple[Path, Future[Path]]] = deque()
    try:
        for index, (zip_path, info) in enumerate(members):
            target = directory / f"member-{index}.csv"
            pending.append((target, pool.submit(extract, zip_path, info, target)))
            if len(pending) > 1:
                yield _ready(pending)
        while pending:
            yield _ready(pending)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        for target, _ in pending:
            target.unlink(missing_ok=True)


def _ready(pending: deque[tuple[Path, Future[Path]]]) -> Path:
    target, future = pending.popleft()
    try:
        return future.result()
    except BaseException:
        target.unlink(missing_ok=True)  # what a failed extraction wrote
        raise
