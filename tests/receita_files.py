"""Synthetic Receita Federal CNPJ files in the published layout: zipped, ``;``-separated, every field
double-quoted, Latin-1, no header."""

from __future__ import annotations

import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path


def line(fields: Sequence[str]) -> bytes:
    return (";".join('"' + f.replace('"', '""') + '"' for f in fields) + "\n").encode("latin-1")


def write_zip(directory: Path, zip_name: str, member: str, rows: Iterable[Sequence[str] | bytes]) -> Path:
    """One zip holding one member; a ``bytes`` row is written as it is (a malformed line)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / zip_name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive, archive.open(member, "w") as out:
        for row in rows:
            out.write(row if isinstance(row, bytes) else line(row))
    return path


ACME = "12345678"  # cnpj_basico of the company every test looks up
ACME_CNPJ = ACME + "0001" + "95"


def empresa(basico: str, name: str, capital: str = "150000,00", porte: str = "03") -> list[str]:
    return [basico, name, "2062", "49", capital, porte, ""]


def estabelecimento(basico: str, ordem: str = "0001", dv: str = "95", **over: str) -> list[str]:
    row = {
        "identificador_matriz_filial": "1", "nome_fantasia": "PADARIA SÃO JOÃO", "situacao_cadastral": "02",
        "data_situacao_cadastral": "20050315", "motivo_situacao_cadastral": "00", "nome_cidade_exterior": "",
        "pais": "", "data_inicio_atividade": "20050315", "cnae_fiscal_principal": "1091102",
        "cnae_fiscal_secundaria": "4721102,5611203", "tipo_logradouro": "RUA", "logradouro": "DAS ACÁCIAS",
        "numero": "120", "complemento": "LOJA 2", "bairro": "CENTRO", "cep": "01310100", "uf": "SP",
        "municipio": "7107", "ddd_1": "11", "telefone_1": "32145678", "ddd_2": "11", "telefone_2": "987654321",
        "ddd_fax": "", "fax": "", "correio_eletronico": "Contato@PadariaSaoJoao.com.br", "situacao_especial": "",
        "data_situacao_especial": "",
    }  # fmt: skip
    row.update(over)
    return [basico, ordem, dv, *row.values()]


def write_release(directory: Path, extra_companies: int = 0) -> Path:
    """A small release: one known company (two partners, Simples) and ``extra_companies`` more, each
    kind of file split into two zips as the Receita does."""
    others = [f"{20000000 + i:08d}" for i in range(extra_companies)]
    half = len(others) // 2
    write_zip(
        directory,
        "Empresas0.zip",
        "K3241.K03200Y0.D41109.EMPRECSV",
        [empresa(ACME, "PADARIA E CONFEITARIA SÃO JOÃO LTDA")]
        + [empresa(b, f"EMPRESA {b} LTDA") for b in others[:half]],
    )
    write_zip(
        directory,
        "Empresas1.zip",
        "K3241.K03200Y1.D41109.EMPRECSV",
        [empresa(b, f"EMPRESA {b} LTDA") for b in others[half:]],
    )
    write_zip(
        directory,
        "Estabelecimentos0.zip",
        "K3241.K03200Y0.D41109.ESTABELE",
        [estabelecimento(ACME)] + [estabelecimento(b, dv="00") for b in others[:half]],
    )
    write_zip(
        directory,
        "Estabelecimentos1.zip",
        "K3241.K03200Y1.D41109.ESTABELE",
        [estabelecimento(b, dv="00") for b in others[half:]],
    )
    write_zip(directory, "Socios0.zip", "K3241.K03200Y0.D41109.SOCIOCSV", [
        [ACME, "2", "JOSÉ DA CONCEIÇÃO", "***123456**", "49", "20050315", "", "***000000**", "", "00", "5"],
        [ACME, "2", "MARIA APARECIDA GONÇALVES", "***654321**", "22", "20100801", "", "***000000**", "", "00", "4"],
    ])  # fmt: skip
    write_zip(
        directory,
        "Simples.zip",
        "F.K03200$W.SIMPLES.CSV.D41109",
        [[ACME, "S", "20070701", "00000000", "N", "00000000", "00000000"]],
    )
    write_zip(directory, "Cnaes.zip", "F.K03200$Z.D41109.CNAECSV", [
        ["1091102", "Fabricação de produtos de padaria e confeitaria com predominância de produção própria"],
        ["4721102", "Padaria e confeitaria com predominância de revenda"],
        ["5611203", "Lanchonetes, casas de chá, de sucos e similares"],
    ])  # fmt: skip
    write_zip(directory, "Municipios.zip", "F.K03200$Z.D41109.MUNICCSV", [["7107", "SAO PAULO"]])
    write_zip(directory, "Naturezas.zip", "F.K03200$Z.D41109.NATJUCSV", [["2062", "Sociedade Empresária Limitada"]])
    write_zip(
        directory,
        "Qualificacoes.zip",
        "F.K03200$Z.D41109.QUALSCSV",
        [["49", "Sócio-Administrador"], ["22", "Sócio"], ["00", "Não informada"]],
    )
    write_zip(directory, "Paises.zip", "F.K03200$Z.D41109.PAISCSV", [["105", "BRASIL"]])
    write_zip(directory, "Motivos.zip", "F.K03200$Z.D41109.MOTICSV", [["00", "SEM MOTIVO"]])
    return directory
