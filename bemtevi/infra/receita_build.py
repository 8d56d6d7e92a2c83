"""The SQL turning the staged Receita Federal files (``bemtevi.infra.receita``) into the local dataset's
company records, in the shape ``bemtevi.infra.demo_data`` writes.

Codes are read as the data dictionary gives them: situação cadastral 01 nula, 02 ativa, 03 suspensa,
04 inapta, 08 baixada; porte 01 ME, 03 EPP, 05 demais (00 not informed); dates YYYYMMDD, 00000000 for
none; capital with a decimal comma; secondary CNAEs comma-separated.
"""

from __future__ import annotations

from collections.abc import Callable

import duckdb

from bemtevi.infra.duckdb_files import transaction

SIMPLES_TYPE = (
    "STRUCT(simples BOOLEAN, simples_since DATE, simples_until DATE, mei BOOLEAN, mei_since DATE, mei_until DATE)"
)


# The columns BUILD_SQL reads of each file, in file order: only these are staged (the rest were a fifth of
# the establishments' and half the partners' columns, each parsed, encoded and written for nothing).
STAGED: dict[str, tuple[str, ...]] = {
    "empresas": ("cnpj_basico", "razao_social", "natureza_juridica", "capital_social", "porte_empresa"),
    "estabelecimentos": (
        "cnpj_basico", "cnpj_ordem", "cnpj_dv", "nome_fantasia", "situacao_cadastral", "nome_cidade_exterior",
        "data_inicio_atividade", "cnae_fiscal_principal", "cnae_fiscal_secundaria", "tipo_logradouro",
        "logradouro", "numero", "complemento", "bairro", "cep", "uf", "municipio", "ddd_1", "telefone_1", "ddd_2",
        "telefone_2", "ddd_fax", "fax", "correio_eletronico",
    ),
    "socios": (
        "cnpj_basico", "nome_socio_razao_social", "cnpj_cpf_socio", "qualificacao_socio", "data_entrada_sociedade",
    ),
    "simples": (
        "cnpj_basico", "opcao_pelo_simples", "data_opcao_simples", "data_exclusao_simples", "opcao_mei",
        "data_opcao_mei", "data_exclusao_mei",
    ),
}  # fmt: skip


def _date(column: str) -> str:
    # "00000000" and "" stand for no date in the published files.
    return f"try_strptime(NULLIF({column}, ''), '%Y%m%d')::DATE"


def _text(column: str) -> str:
    return f"NULLIF(trim({column}), '')"


def in_slice(slices: int, part: int, parts: int) -> str:
    """The rows of slice ``part`` of ``slices`` (a power of two): ``hash(cnpj_basico) % slices = part``,
    said through the staged files' parts where it can be, so a slice reads only its parts' files: as a list
    of parts (DuckDB skips a partition's files for ``part IN (...)``, not for ``part % n = k``)."""
    if slices <= parts:
        return f"part IN ({', '.join(str(p) for p in range(part, parts, slices))})"
    return f"part = {part % parts} AND hash(cnpj_basico) % {slices} = {part}"


# Run once per slice of the companies (``__IN_SLICE__`` picks a slice's rows by a hash of the CNPJ root,
# so a company's establishments, partners and Simples line fall in the same slice): each statement's joins
# and aggregations then hold a slice, not the release, within the memory limit. A duplicated line (by
# key) is taken once, the first read, by its ``seq``: a window over whole rows would hold them all.
# The records go straight into ``companies`` (``INSERT ... BY NAME``): a temporary table between was each
# record written and read once more.
BUILD_SQL = f"""
WITH
codes AS (SELECT kind, codigo, arg_min(descricao, rowid) AS descricao FROM rf_codes GROUP BY kind, codigo),
cnae AS (SELECT codigo, descricao FROM codes WHERE kind = 'cnaes'),
cnae_names AS (SELECT list(descricao ORDER BY codigo) AS names FROM cnae WHERE codigo IS NOT NULL),
partners AS (
    -- list_sort, not list(... ORDER BY ...): an ordered aggregate sorts each group on its own, many times slower
    SELECT s.cnpj_basico,
           list_sort(list(struct_pack(
               name := {_text("s.nome_socio_razao_social")},
               document := {_text("s.cnpj_cpf_socio")},
               role := q.descricao,
               since := {_date("s.data_entrada_sociedade")}
           ))) AS partners
    FROM (SELECT * FROM rf_socios WHERE __IN_SLICE__) s
    LEFT JOIN (SELECT codigo, descricao FROM codes WHERE kind = 'qualificacoes') q ON q.codigo = s.qualificacao_socio
    GROUP BY s.cnpj_basico
),
simples AS (
    SELECT cnpj_basico, struct_pack(
        simples := opcao_pelo_simples = 'S', simples_since := {_date("data_opcao_simples")},
        simples_until := {_date("data_exclusao_simples")}, mei := opcao_mei = 'S',
        mei_since := {_date("data_opcao_mei")}, mei_until := {_date("data_exclusao_mei")}
    )::{SIMPLES_TYPE} AS simples
    FROM rf_simples
    WHERE __IN_SLICE__ AND seq IN (SELECT min(seq) FROM rf_simples WHERE __IN_SLICE__
                    GROUP BY cnpj_basico)
)
SELECT
    e.cnpj_basico || e.cnpj_ordem || e.cnpj_dv AS cnpj,
    coalesce({_text("m.razao_social")}, '') AS company_name,
    {_text("e.nome_fantasia")} AS trade_name,
    {_date("e.data_inicio_atividade")} AS opening_date,
    CASE e.situacao_cadastral
        WHEN '01' THEN 'NULA' WHEN '1' THEN 'NULA' WHEN '02' THEN 'ATIVA' WHEN '2' THEN 'ATIVA'
        WHEN '03' THEN 'SUSPENSA' WHEN '3' THEN 'SUSPENSA' WHEN '04' THEN 'INAPTA' WHEN '4' THEN 'INAPTA'
        WHEN '08' THEN 'BAIXADA' WHEN '8' THEN 'BAIXADA' ELSE e.situacao_cadastral END AS status,
    coalesce(nat.descricao, m.natureza_juridica, '') AS legal_nature,
    CASE WHEN {_text("e.cnae_fiscal_principal")} IS NULL THEN NULL
         ELSE struct_pack(code := e.cnae_fiscal_principal, description := cnae.descricao) END AS main_activity,
    CASE m.porte_empresa WHEN '01' THEN 'ME' WHEN '03' THEN 'EPP' WHEN '05' THEN 'DEMAIS' END AS size,
    TRY_CAST(replace(m.capital_social, ',', '.') AS DECIMAL(15, 2)) AS share_capital,
    struct_pack(
        street := {_text("concat_ws(' ', NULLIF(trim(e.tipo_logradouro), ''), NULLIF(trim(e.logradouro), ''))")},
        number := {_text("e.numero")}, complement := {_text("e.complemento")},
        neighborhood := {_text("e.bairro")},
        city := coalesce(mun.descricao, {_text("e.nome_cidade_exterior")}),
        state := {_text("e.uf")}, zip := {_text("e.cep")}
    ) AS address,
    list_filter([
        struct_pack(number := {_text("e.ddd_1")} || {_text("e.telefone_1")},
                    type := CASE WHEN length(trim(e.telefone_1)) = 9 THEN 'mobile' ELSE 'landline' END),
        struct_pack(number := {_text("e.ddd_2")} || {_text("e.telefone_2")},
                    type := CASE WHEN length(trim(e.telefone_2)) = 9 THEN 'mobile' ELSE 'landline' END),
        struct_pack(number := {_text("e.ddd_fax")} || {_text("e.fax")}, type := 'fax')
    ], p -> p.number IS NOT NULL) AS phones,
    CASE WHEN {_text("e.correio_eletronico")} IS NULL THEN []::VARCHAR[]
         ELSE [lower(trim(e.correio_eletronico))] END AS emails,
    coalesce(p.partners, []) AS partners,
    NULL::INTEGER AS score,
    [] AS protests,
    -- each establishment's own list, in file order, named by the code's place in the CNAE table: its value of the
    -- enum of the table's codes (a hash lookup; a MAP's is a search through its 1,358 keys; an unnest, join and
    -- regroup cost six times the search)
    coalesce(list_transform(
        list_filter(list_transform(string_split(e.cnae_fiscal_secundaria, ','), c -> trim(c)), c -> c <> ''),
        c -> struct_pack(code := c, description := cnae_names.names[enum_code(TRY_CAST(c AS rf_cnae_code)) + 1])
    ), []) AS secondary_activities,
    sim.simples
FROM (SELECT * FROM rf_estabelecimentos WHERE __IN_SLICE__ AND seq IN (
          SELECT min(seq) FROM rf_estabelecimentos WHERE __IN_SLICE__
          GROUP BY cnpj_basico, cnpj_ordem, cnpj_dv
          -- a malformed key left out here, not by a WHERE on e: pushed down to e, that filter made the
          -- optimizer expect fewer establishments than companies and hash the establishments' wide rows
          -- to join the companies' narrow ones, not the other way round
          HAVING length(cnpj_basico || cnpj_ordem || cnpj_dv) = 14)) e
LEFT JOIN (SELECT * FROM rf_empresas WHERE __IN_SLICE__ AND seq IN (
          SELECT min(seq) FROM rf_empresas WHERE __IN_SLICE__
          GROUP BY cnpj_basico)) m
    ON m.cnpj_basico = e.cnpj_basico
LEFT JOIN (SELECT codigo, descricao FROM codes WHERE kind = 'naturezas') nat ON nat.codigo = m.natureza_juridica
LEFT JOIN cnae ON cnae.codigo = e.cnae_fiscal_principal
LEFT JOIN (SELECT codigo, descricao FROM codes WHERE kind = 'municipios') mun ON mun.codigo = e.municipio
LEFT JOIN partners p ON p.cnpj_basico = e.cnpj_basico
LEFT JOIN simples sim ON sim.cnpj_basico = e.cnpj_basico
CROSS JOIN cnae_names
"""
# The CNAE table's codes as an enum, in the order ``cnae_names`` lists their descriptions (a temporary type: each
# slice's connection makes its own).
CNAE_CODES_SQL = """
CREATE OR REPLACE TEMP TYPE rf_cnae_code AS ENUM (
    SELECT DISTINCT codigo FROM rf_codes WHERE kind = 'cnaes' AND codigo IS NOT NULL ORDER BY codigo
)
"""


def build_slice(
    cur: duckdb.DuckDBPyConnection,
    slices: int,
    part: int,
    parts: int,
    replacing: bool,
    before_commit: Callable[[str], None] | None,
) -> None:
    """Build slice ``part`` of ``slices`` into ``companies`` and commit it with its line in ``rf_slices``
    (``replacing``: first delete the records of its CNPJs); ``before_commit`` is called just before."""
    rows = in_slice(slices, part, parts)
    cur.execute(CNAE_CODES_SQL)
    with transaction(cur):
        if replacing:
            cur.execute(
                "DELETE FROM companies WHERE cnpj IN (SELECT cnpj_basico || cnpj_ordem || cnpj_dv "
                f"FROM rf_estabelecimentos WHERE {rows})"
            )
        built = cur.execute(f"INSERT INTO companies BY NAME {BUILD_SQL.replace('__IN_SLICE__', rows)}")
        count = int((built.fetchone() or (0,))[0])
        cur.execute("INSERT INTO rf_slices VALUES (?, ?, ?)", [slices, part, count])
        if before_commit is not None:
            before_commit(f"records {part + 1}/{slices}")
