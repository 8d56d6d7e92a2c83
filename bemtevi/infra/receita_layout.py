"""The Receita Federal's published CNPJ layout (the "Dicionário de Dados do Cadastro Nacional da Pessoa
Jurídica"): each file's columns in order, the code tables, and which file a name is."""

from __future__ import annotations

import zipfile
from pathlib import Path

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
