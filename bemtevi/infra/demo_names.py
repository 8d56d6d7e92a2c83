"""Word lists for the pt-BR demo dataset (see ``bemtevi.infra.demo_data``).

Plain data only: first names, surnames, cities (with UF, area code and CEP range), streets,
neighbourhoods, professions, CNAE activities, creditors. Lists are ordered roughly from the most
to the least common entry; the generator gives earlier entries higher weights.
"""

from __future__ import annotations

from typing import NamedTuple

# fmt: off
MALE_FIRST_NAMES: tuple[str, ...] = (
    "José", "João", "Antônio", "Francisco", "Carlos", "Paulo", "Pedro", "Lucas", "Luiz", "Marcos", "Luís",
    "Gabriel", "Rafael", "Daniel", "Marcelo", "Bruno", "Eduardo", "Felipe", "Raimundo", "Rodrigo", "Manoel",
    "Mateus", "André", "Fernando", "Fábio", "Leonardo", "Gustavo", "Guilherme", "Leandro", "Tiago",
    "Anderson", "Ricardo", "Márcio", "Jorge", "Sebastião", "Alexandre", "Roberto", "Edson", "Diego",
    "Vitor", "Sérgio", "Cláudio", "Matheus", "Thiago", "Geraldo", "Adriano", "Luciano", "Júlio", "Renato",
    "Alex", "Vinícius", "Rogério", "Samuel", "Ronaldo", "Mário", "Flávio", "Douglas", "Igor", "Davi",
    "Manuel", "Jefferson", "Severino", "Joaquim", "Wellington", "Benedito", "Arthur", "Heitor", "Bernardo",
    "Miguel", "Enzo", "Théo", "Lorenzo", "Nicolas", "Henrique", "Caio", "Murilo", "Otávio",
    "Renan", "Wagner", "Valdir", "Osvaldo", "Nelson", "Reginaldo", "Rubens", "Hélio", "Alberto", "Juliano",
    "Robson", "Cristiano", "Emerson", "Everton", "Wesley", "Washington", "Gilberto", "Jair", "Valter",
    "Ademir", "Moisés", "Ismael", "Elias", "Natanael", "Abel", "Raul", "Augusto", "César",
    "Fabrício", "Maurício", "Milton", "Nilton", "Osmar", "Ailton", "Edvaldo", "Josué", "Cícero",
    "Expedito", "Damião", "Cosme", "Valdemar", "Zacarias", "Ivan", "Ícaro", "Kauã", "Breno", "Cauã",
    "Pietro", "Benício", "Emanuel", "Lucca", "Isaac", "Vicente", "Anthony", "Gael", "Bento",
    "Ravi", "Noah", "Rian", "Yuri", "Hugo", "Danilo", "Wilson", "Gilson", "Edmilson", "Vanderlei",
    "Claudinei", "Lourival", "Arlindo", "Orlando", "Otacílio", "Walter", "Ulisses", "Vitório",
    "Tadeu", "Silvio", "Saulo", "Rômulo", "Patrick", "Paulo Henrique", "Nathan",
)
# fmt: on

# fmt: off
FEMALE_FIRST_NAMES: tuple[str, ...] = (
    "Maria", "Ana", "Francisca", "Antônia", "Adriana", "Juliana", "Márcia", "Fernanda", "Patrícia", "Aline",
    "Sandra", "Camila", "Amanda", "Bruna", "Jéssica", "Letícia", "Júlia", "Luciana", "Vanessa", "Mariana",
    "Gabriela", "Vera", "Vitória", "Larissa", "Cláudia", "Beatriz", "Rita", "Luana", "Sônia", "Renata",
    "Eliane", "Josefa", "Simone", "Natália", "Cristiane", "Carla", "Débora", "Rosângela", "Jaqueline",
    "Rosa", "Daniela", "Aparecida", "Marlene", "Terezinha", "Raimunda", "Andréa", "Fabiana", "Lúcia",
    "Raquel", "Ângela", "Rafaela", "Joana", "Luzia", "Elaine", "Daniele", "Regina", "Daiane", "Suelen",
    "Alessandra", "Isabel", "Tatiane", "Priscila", "Helena", "Alice", "Laura", "Manuela", "Valentina",
    "Sophia", "Isabella", "Heloísa", "Luiza", "Lorena", "Lívia", "Giovanna", "Maria Eduarda", "Cecília",
    "Eloá", "Lara", "Clara", "Yasmin", "Isadora", "Mirella", "Esther", "Emanuelly", "Sarah", "Rebeca",
    "Agatha", "Lavínia", "Melissa", "Catarina", "Olívia", "Marina", "Nicole", "Carolina", "Bianca", "Thaís",
    "Tainá", "Kelly", "Michele", "Viviane", "Silvana", "Solange", "Tânia", "Célia", "Neide", "Ivone",
    "Irene", "Zilda", "Sebastiana", "Benedita", "Conceição", "Fátima", "Glória", "Graça", "Lourdes",
    "Socorro", "Edna", "Eliana", "Elisângela", "Gisele", "Ingrid", "Jordana", "Karina", "Kátia", "Lilian",
    "Mônica", "Nádia", "Odete", "Paula", "Poliana", "Roberta", "Rosana", "Rosemeire", "Sheila", "Silvia",
    "Talita", "Valéria", "Vânia", "Yara", "Zuleide", "Denise", "Edilene", "Geovana", "Iara", "Janaína",
    "Jussara", "Leila", "Mara", "Noemi", "Regiane", "Sabrina", "Tereza", "Ana Clara", "Ana Paula",
    "Ana Luiza", "Maria Clara", "Maria Luiza", "Maria Alice", "Pietra", "Stella", "Rayssa", "Milena",
    "Lorrane", "Kamila", "Jennifer", "Hellen", "Evelyn", "Ester",
)
# fmt: on

# Surnames; the particle ("da", "de", "dos") is part of the entry, as in registry names.
# fmt: off
SURNAMES: tuple[str, ...] = (
    "da Silva", "dos Santos", "Oliveira", "de Souza", "Rodrigues", "Ferreira", "Alves", "Pereira", "Lima",
    "Gomes", "Costa", "Ribeiro", "Martins", "Carvalho", "de Almeida", "Lopes", "Soares", "Fernandes",
    "Vieira", "Barbosa", "da Rocha", "Dias", "do Nascimento", "de Andrade", "Moreira", "Nunes", "Marques",
    "Machado", "Mendes", "de Freitas", "Cardoso", "Ramos", "Gonçalves", "Santana", "Teixeira", "de Araújo",
    "Pinto", "da Cruz", "Correia", "de Melo", "Rocha", "Monteiro", "Cavalcanti", "Campos", "Barros",
    "Batista", "Reis", "Moura", "Nogueira", "Azevedo", "Cunha", "Farias", "Pires", "Castro", "Brito",
    "Miranda", "Xavier", "Medeiros", "Freire", "Lacerda", "Borges", "Sales", "Bezerra", "Aguiar", "Fonseca",
    "Tavares", "Siqueira", "Duarte", "Leite", "Sampaio", "Queiroz", "Rezende", "Guimarães", "Magalhães",
    "Figueiredo", "Bastos", "Coelho", "Couto", "Viana", "Pacheco", "Matos", "Meireles", "Caldeira", "Neves",
    "Amaral", "Paiva", "Peixoto", "Pimentel", "Prado", "Cordeiro", "Vasconcelos", "Sousa", "da Conceição",
    "de Jesus", "de Paula", "da Costa", "da Luz", "das Neves", "Bento", "Franco", "Godoy", "Leal", "Macedo",
    "Maciel", "Marinho", "Menezes", "Morais", "Mota", "Nóbrega", "Porto", "Quintana", "Rangel",
    "Rios", "Sá", "Salgado", "Serra", "Simões", "Toledo", "Valente", "Vaz", "Valadares", "Zanetti",
    "Bianchi", "Rossi", "Ferraz", "Schmidt", "Müller", "Schneider", "Becker", "Weber", "Wagner", "Koch",
    "Hoffmann", "Yamamoto", "Tanaka", "Nakamura", "Suzuki", "Sato", "Watanabe", "Kobayashi", "Russo",
    "Romano", "Colombo", "Ricci", "Greco", "Conti", "De Luca", "Mancini", "Lombardi", "Moretti", "Barbieri",
    "Fontana", "Santoro", "Marino", "Caruso", "Brandão", "Fagundes", "Falcão", "Galvão", "Holanda",
    "Jardim", "Lins", "Louzada", "Maia", "Mattos", "Montenegro", "Muniz", "Nobre", "Paixão", "Queiroga",
    "Rabelo", "Resende", "Sobral", "Torres", "Trindade", "Uchôa", "Veloso", "Vilela", "Abreu",
    "Albuquerque", "Antunes", "Arruda", "Assis", "Bittencourt", "Brandt", "Bueno", "Camargo", "Chaves",
    "Diniz", "Dantas", "Esteves", "Faria", "Furtado", "Garcia", "Goulart", "Holanda Cavalcanti", "Lemos",
    "Loureiro", "Marçal", "Mascarenhas", "Meira", "Mesquita", "Moraes", "Novaes", "Padilha", "Quaresma",
    "Ramalho", "Sarmento", "Seixas", "Silveira", "Tenório", "Ventura", "Xavier de Lima",
)
# fmt: on


class City(NamedTuple):
    name: str
    state: str
    ddd: int
    cep_from: int  # first five CEP digits, inclusive range
    cep_to: int
    weight: int  # rough population in thousands; drives how often the city is drawn


CITIES: tuple[City, ...] = (
    City("São Paulo", "SP", 11, 1000, 5999, 11450),
    City("Guarulhos", "SP", 11, 7000, 7399, 1290),
    City("Campinas", "SP", 19, 13000, 13139, 1140),
    City("São Bernardo do Campo", "SP", 11, 9600, 9899, 810),
    City("Santo André", "SP", 11, 9000, 9299, 750),
    City("Osasco", "SP", 11, 6000, 6299, 730),
    City("Ribeirão Preto", "SP", 16, 14000, 14114, 700),
    City("Sorocaba", "SP", 15, 18000, 18109, 720),
    City("São José dos Campos", "SP", 12, 12200, 12248, 700),
    City("Santos", "SP", 13, 11000, 11249, 420),
    City("Jundiaí", "SP", 11, 13200, 13219, 440),
    City("Piracicaba", "SP", 19, 13400, 13427, 420),
    City("Bauru", "SP", 14, 17000, 17109, 380),
    City("São José do Rio Preto", "SP", 17, 15000, 15099, 480),
    City("Rio de Janeiro", "RJ", 21, 20000, 23799, 6210),
    City("Niterói", "RJ", 21, 24000, 24399, 480),
    City("Duque de Caxias", "RJ", 21, 25000, 25299, 810),
    City("Nova Iguaçu", "RJ", 21, 26000, 26099, 790),
    City("Petrópolis", "RJ", 24, 25600, 25779, 280),
    City("Volta Redonda", "RJ", 24, 27200, 27299, 260),
    City("Campos dos Goytacazes", "RJ", 22, 28000, 28099, 480),
    City("Belo Horizonte", "MG", 31, 30000, 31999, 2310),
    City("Contagem", "MG", 31, 32000, 32399, 620),
    City("Betim", "MG", 31, 32600, 32699, 410),
    City("Uberlândia", "MG", 34, 38400, 38414, 710),
    City("Uberaba", "MG", 34, 38000, 38099, 340),
    City("Juiz de Fora", "MG", 32, 36000, 36099, 540),
    City("Montes Claros", "MG", 38, 39400, 39409, 410),
    City("Ipatinga", "MG", 31, 35160, 35164, 230),
    City("Governador Valadares", "MG", 33, 35000, 35099, 260),
    City("Vitória", "ES", 27, 29000, 29099, 320),
    City("Vila Velha", "ES", 27, 29100, 29129, 470),
    City("Serra", "ES", 27, 29160, 29184, 520),
    City("Cariacica", "ES", 27, 29140, 29159, 350),
    City("Salvador", "BA", 71, 40000, 42599, 2420),
    City("Feira de Santana", "BA", 75, 44000, 44099, 620),
    City("Vitória da Conquista", "BA", 77, 45000, 45099, 370),
    City("Ilhéus", "BA", 73, 45650, 45664, 180),
    City("Juazeiro", "BA", 74, 48900, 48909, 240),
    City("Aracaju", "SE", 79, 49000, 49099, 600),
    City("Nossa Senhora do Socorro", "SE", 79, 49160, 49169, 190),
    City("Recife", "PE", 81, 50000, 52999, 1490),
    City("Jaboatão dos Guararapes", "PE", 81, 54000, 54499, 640),
    City("Olinda", "PE", 81, 53000, 53399, 350),
    City("Caruaru", "PE", 81, 55000, 55099, 380),
    City("Petrolina", "PE", 87, 56300, 56399, 390),
    City("Maceió", "AL", 82, 57000, 57099, 960),
    City("Arapiraca", "AL", 82, 57300, 57319, 230),
    City("João Pessoa", "PB", 83, 58000, 58099, 830),
    City("Campina Grande", "PB", 83, 58400, 58439, 420),
    City("Natal", "RN", 84, 59000, 59139, 750),
    City("Mossoró", "RN", 84, 59600, 59649, 260),
    City("Fortaleza", "CE", 85, 60000, 61599, 2430),
    City("Caucaia", "CE", 85, 61600, 61699, 360),
    City("Juazeiro do Norte", "CE", 88, 63000, 63059, 290),
    City("Sobral", "CE", 88, 62000, 62119, 210),
    City("Teresina", "PI", 86, 64000, 64099, 870),
    City("Parnaíba", "PI", 86, 64200, 64219, 160),
    City("São Luís", "MA", 98, 65000, 65109, 1040),
    City("Imperatriz", "MA", 99, 65900, 65919, 270),
    City("Belém", "PA", 91, 66000, 66999, 1300),
    City("Ananindeua", "PA", 91, 67000, 67199, 480),
    City("Santarém", "PA", 93, 68000, 68109, 330),
    City("Marabá", "PA", 94, 68500, 68519, 270),
    City("Macapá", "AP", 96, 68900, 68914, 440),
    City("Santana", "AP", 96, 68925, 68929, 110),
    City("Manaus", "AM", 92, 69000, 69099, 2060),
    City("Parintins", "AM", 92, 69150, 69159, 100),
    City("Boa Vista", "RR", 95, 69300, 69339, 410),
    City("Rorainópolis", "RR", 95, 69373, 69373, 30),
    City("Rio Branco", "AC", 68, 69900, 69924, 360),
    City("Cruzeiro do Sul", "AC", 68, 69980, 69989, 90),
    City("Porto Velho", "RO", 69, 76800, 76834, 460),
    City("Ji-Paraná", "RO", 69, 76900, 76914, 120),
    City("Brasília", "DF", 61, 70000, 72799, 2820),
    City("Goiânia", "GO", 62, 74000, 74899, 1440),
    City("Aparecida de Goiânia", "GO", 62, 74900, 74999, 530),
    City("Anápolis", "GO", 62, 75000, 75159, 400),
    City("Rio Verde", "GO", 64, 75900, 75909, 230),
    City("Palmas", "TO", 63, 77000, 77299, 300),
    City("Araguaína", "TO", 63, 77800, 77829, 170),
    City("Cuiabá", "MT", 65, 78000, 78109, 650),
    City("Várzea Grande", "MT", 65, 78110, 78159, 300),
    City("Rondonópolis", "MT", 66, 78700, 78749, 240),
    City("Sinop", "MT", 66, 78550, 78559, 200),
    City("Campo Grande", "MS", 67, 79000, 79129, 900),
    City("Dourados", "MS", 67, 79800, 79849, 240),
    City("Três Lagoas", "MS", 67, 79600, 79649, 130),
    City("Curitiba", "PR", 41, 80000, 82999, 1770),
    City("Londrina", "PR", 43, 86000, 86099, 560),
    City("Maringá", "PR", 44, 87000, 87099, 410),
    City("Ponta Grossa", "PR", 42, 84000, 84099, 360),
    City("Cascavel", "PR", 45, 85800, 85820, 350),
    City("Foz do Iguaçu", "PR", 45, 85850, 85869, 290),
    City("Florianópolis", "SC", 48, 88000, 88099, 540),
    City("Joinville", "SC", 47, 89200, 89239, 620),
    City("Blumenau", "SC", 47, 89000, 89099, 360),
    City("Chapecó", "SC", 49, 89800, 89816, 260),
    City("Criciúma", "SC", 48, 88800, 88819, 220),
    City("Itajaí", "SC", 47, 88300, 88319, 270),
    City("Porto Alegre", "RS", 51, 90000, 91999, 1330),
    City("Canoas", "RS", 51, 92000, 92499, 350),
    City("Gravataí", "RS", 51, 94000, 94299, 270),
    City("Novo Hamburgo", "RS", 51, 93300, 93599, 230),
    City("Caxias do Sul", "RS", 54, 95000, 95124, 460),
    City("Pelotas", "RS", 53, 96000, 96099, 330),
    City("Santa Maria", "RS", 55, 97000, 97119, 270),
    City("Passo Fundo", "RS", 54, 99000, 99099, 210),
)

# Fiscal region (9th digit of a CPF) of each UF, as assigned by the Receita Federal.
CPF_REGION_BY_STATE: dict[str, int] = {
    "RS": 0,
    "DF": 1,
    "GO": 1,
    "MS": 1,
    "MT": 1,
    "TO": 1,
    "AC": 2,
    "AM": 2,
    "AP": 2,
    "PA": 2,
    "RO": 2,
    "RR": 2,
    "CE": 3,
    "MA": 3,
    "PI": 3,
    "AL": 4,
    "PB": 4,
    "PE": 4,
    "RN": 4,
    "BA": 5,
    "SE": 5,
    "MG": 6,
    "ES": 7,
    "RJ": 7,
    "SP": 8,
    "PR": 9,
    "SC": 9,
}

STREET_TYPES: tuple[str, ...] = ("Rua", "Rua", "Rua", "Rua", "Avenida", "Avenida", "Travessa", "Alameda")

# fmt: off
STREET_NAMES: tuple[str, ...] = (
    "Sete de Setembro", "Quinze de Novembro", "Getúlio Vargas", "Tiradentes", "Dom Pedro II", "Rui Barbosa",
    "Brasil", "Santos Dumont", "Marechal Deodoro", "Duque de Caxias", "José Bonifácio",
    "Barão do Rio Branco", "Presidente Vargas", "das Flores", "São João", "Castro Alves",
    "Machado de Assis", "Carlos Gomes", "Independência", "Princesa Isabel", "Floriano Peixoto",
    "Benjamin Constant", "Bahia", "Paraná", "Amazonas", "Pernambuco", "Minas Gerais", "Goiás", "Sergipe",
    "Paraíba", "Ceará", "Maranhão", "Piauí", "Alagoas", "Treze de Maio", "Primeiro de Maio",
    "Vinte e Um de Abril", "Sete de Abril", "Nove de Julho", "Juscelino Kubitschek", "Tancredo Neves",
    "Ulysses Guimarães", "Chico Mendes", "Cecília Meireles", "Monteiro Lobato", "Olavo Bilac",
    "Gonçalves Dias", "José de Alencar", "Euclides da Cunha", "Cândido Portinari", "Anita Garibaldi",
    "Bento Gonçalves", "Visconde de Mauá", "Osvaldo Cruz", "Vital Brasil", "Padre Anchieta", "Padre Cícero",
    "Frei Caneca", "São Francisco", "São Paulo", "Santa Catarina", "Santo Antônio", "São Sebastião",
    "Nossa Senhora Aparecida", "das Palmeiras", "dos Ipês", "das Acácias", "dos Girassóis", "das Orquídeas",
    "Beira Rio", "da Liberdade", "da Paz", "da Saudade", "do Comércio", "XV de Novembro",
    "Coronel Fernandes", "Major Gote", "Capitão Rocha", "General Osório", "Almirante Barroso",
    "Doutor Arnaldo", "Professor Alfredo", "Engenheiro Rebouças", "Prefeito Faria Lima",
    "Vereador José Diniz", "Governador Valadares",
)
# fmt: on

# fmt: off
NEIGHBORHOODS: tuple[str, ...] = (
    "Centro", "Centro", "Centro", "Jardim América", "Vila Nova", "Boa Vista", "São José", "Santa Cruz",
    "Planalto", "Industrial", "Santa Luzia", "Bela Vista", "Jardim das Flores", "Vila Operária",
    "Cidade Nova", "Parque das Nações", "Jardim Europa", "Vila Maria", "Santo Antônio", "São Francisco",
    "Jardim Primavera", "Nova Esperança", "Alto da Boa Vista", "Jardim Paulista", "Vila Real",
    "Cidade Alta", "Cidade Jardim", "Parque Industrial", "Jardim Botânico", "Morada do Sol",
    "Conjunto Habitacional", "Residencial Bela Vista", "Vila Esperança", "São Cristóvão", "Liberdade",
    "Aeroporto", "Jardim Santa Rita", "Vila Progresso", "Campo Grande", "Santa Mônica",
    "Nossa Senhora das Graças", "Jardim Tropical", "Vila São Jorge", "Floresta", "Ipiranga", "Glória",
    "Jardim Brasil", "Santa Terezinha",
)
# fmt: on

# fmt: off
COMPLEMENTS: tuple[str, ...] = (
    "Apto 101", "Apto 202", "Apto 304", "Apto 1102", "Bloco B Apto 12", "Bloco A Apto 301", "Casa 2",
    "Casa 3", "Casa B", "Fundos", "Sala 12", "Sala 504", "Loja 3", "Térreo", "Lote 14 Quadra 7",
    "Quadra 12 Lote 5", "Conjunto 41", "2º andar",
)
# fmt: on

# (masculine, feminine, education tier 0 = basic, 1 = secondary/technical, 2 = higher)
PROFESSIONS: tuple[tuple[str, str, int], ...] = (
    ("Pedreiro", "Pedreira", 0),
    ("Auxiliar de limpeza", "Auxiliar de limpeza", 0),
    ("Motorista", "Motorista", 0),
    ("Vendedor", "Vendedora", 0),
    ("Cozinheiro", "Cozinheira", 0),
    ("Costureiro", "Costureira", 0),
    ("Agricultor", "Agricultora", 0),
    ("Porteiro", "Porteira", 0),
    ("Empregado doméstico", "Empregada doméstica", 0),
    ("Servente de obras", "Servente de obras", 0),
    ("Repositor de mercadorias", "Repositora de mercadorias", 0),
    ("Garçom", "Garçonete", 0),
    ("Ajudante de carga", "Ajudante de carga", 0),
    ("Cabeleireiro", "Cabeleireira", 0),
    ("Auxiliar administrativo", "Auxiliar administrativa", 1),
    ("Operador de caixa", "Operadora de caixa", 1),
    ("Técnico de enfermagem", "Técnica de enfermagem", 1),
    ("Eletricista", "Eletricista", 1),
    ("Mecânico de automóveis", "Mecânica de automóveis", 1),
    ("Recepcionista", "Recepcionista", 1),
    ("Comerciante", "Comerciante", 1),
    ("Assistente administrativo", "Assistente administrativa", 1),
    ("Operador de telemarketing", "Operadora de telemarketing", 1),
    ("Vigilante", "Vigilante", 1),
    ("Técnico em informática", "Técnica em informática", 1),
    ("Auxiliar de escritório", "Auxiliar de escritório", 1),
    ("Representante comercial", "Representante comercial", 1),
    ("Policial militar", "Policial militar", 1),
    ("Professor", "Professora", 2),
    ("Advogado", "Advogada", 2),
    ("Médico", "Médica", 2),
    ("Engenheiro civil", "Engenheira civil", 2),
    ("Enfermeiro", "Enfermeira", 2),
    ("Contador", "Contadora", 2),
    ("Analista de sistemas", "Analista de sistemas", 2),
    ("Administrador", "Administradora", 2),
    ("Dentista", "Dentista", 2),
    ("Farmacêutico", "Farmacêutica", 2),
    ("Arquiteto", "Arquiteta", 2),
    ("Psicólogo", "Psicóloga", 2),
    ("Servidor público", "Servidora pública", 2),
    ("Empresário", "Empresária", 2),
    ("Fisioterapeuta", "Fisioterapeuta", 2),
    ("Economista", "Economista", 2),
    ("Jornalista", "Jornalista", 2),
    ("Desenvolvedor de software", "Desenvolvedora de software", 2),
)

# fmt: off
EDUCATION_LEVELS: tuple[str, ...] = (
    "Fundamental incompleto", "Fundamental completo", "Médio incompleto", "Médio completo",
    "Superior incompleto", "Superior completo", "Pós-graduação", "Mestrado", "Doutorado",
)
# fmt: on
EDUCATION_WEIGHTS: tuple[float, ...] = (0.15, 0.08, 0.07, 0.32, 0.08, 0.22, 0.055, 0.018, 0.007)
EDUCATION_TIER: tuple[int, ...] = (0, 0, 0, 1, 1, 2, 2, 2, 2)
# Median monthly income (R$) by education level.
EDUCATION_MEDIAN_INCOME: tuple[float, ...] = (1550, 1800, 1900, 2500, 2700, 5400, 8200, 11000, 14500)

# (masculine, feminine)
MARITAL_STATUSES: tuple[tuple[str, str], ...] = (
    ("Solteiro", "Solteira"),
    ("Casado", "Casada"),
    ("Divorciado", "Divorciada"),
    ("Viúvo", "Viúva"),
    ("União estável", "União estável"),
)

# fmt: off
SIGNS: tuple[str, ...] = (
    "Capricórnio", "Aquário", "Peixes", "Áries", "Touro", "Gêmeos", "Câncer", "Leão", "Virgem", "Libra",
    "Escorpião", "Sagitário",
)
# fmt: on
# month*100+day on which each sign after Capricórnio starts (Aquário starts on 20 January, ...).
SIGN_STARTS: tuple[int, ...] = (120, 219, 321, 420, 521, 621, 723, 823, 923, 1023, 1122, 1222)

# fmt: off
EMAIL_DOMAINS: tuple[str, ...] = (
    "gmail.com", "gmail.com", "gmail.com", "gmail.com", "gmail.com", "hotmail.com", "hotmail.com",
    "outlook.com", "yahoo.com.br", "uol.com.br", "bol.com.br", "terra.com.br", "icloud.com", "live.com",
)
# fmt: on

# fmt: off
CREDITORS: tuple[str, ...] = (
    "Banco do Brasil S.A.", "Caixa Econômica Federal", "Itaú Unibanco S.A.", "Banco Bradesco S.A.",
    "Banco Santander (Brasil) S.A.", "Nu Pagamentos S.A.", "Banco Pan S.A.", "Banco BMG S.A.",
    "Crefisa S.A.", "Claro S.A.", "Telefônica Brasil S.A.", "TIM S.A.", "Oi S.A.",
    "Enel Distribuição São Paulo", "Cemig Distribuição S.A.", "Light Serviços de Eletricidade S.A.",
    "Lojas Renner S.A.", "Magazine Luiza S.A.", "Grupo Casas Bahia S.A.", "Lojas Riachuelo S.A.",
    "Banco Inter S.A.", "Banco C6 S.A.", "Sabesp", "Ativos S.A. Securitizadora",
)
# fmt: on


class Activity(NamedTuple):
    code: str
    description: str
    phrase: str  # used in company names: "<Surname> <phrase> Ltda"
    trade_prefix: str  # used in trade names: "<trade_prefix> <Surname>"
    slug: str  # e-mail domain part


ACTIVITIES: tuple[Activity, ...] = (
    Activity(
        "4711-3/02",
        "Comércio varejista de mercadorias em geral, com predominância de produtos alimentícios - supermercados",
        "Comércio de Alimentos",
        "Supermercado",
        "supermercado",
    ),
    Activity(
        "4712-1/00",
        "Comércio varejista de mercadorias em geral, com predominância de produtos "
        "alimentícios - minimercados, mercearias e armazéns",
        "Comércio de Alimentos",
        "Mercearia",
        "mercearia",
    ),
    Activity("5611-2/01", "Restaurantes e similares", "Restaurante", "Restaurante", "restaurante"),
    Activity("5611-2/03", "Lanchonetes, casas de chá, de sucos e similares", "Lanchonete", "Lanchonete", "lanchonete"),
    Activity(
        "4781-4/00",
        "Comércio varejista de artigos do vestuário e acessórios",
        "Comércio de Roupas",
        "Boutique",
        "boutique",
    ),
    Activity("9602-5/01", "Cabeleireiros, manicure e pedicure", "Serviços de Beleza", "Salão", "salao"),
    Activity(
        "4771-7/01",
        "Comércio varejista de produtos farmacêuticos, sem manipulação de fórmulas",
        "Comércio de Medicamentos",
        "Drogaria",
        "drogaria",
    ),
    Activity(
        "4520-0/01",
        "Serviços de manutenção e reparação mecânica de veículos automotores",
        "Serviços Automotivos",
        "Auto Center",
        "autocenter",
    ),
    Activity("4120-4/00", "Construção de edifícios", "Construções", "Construtora", "construtora"),
    Activity("6201-5/01", "Desenvolvimento de programas de computador sob encomenda", "Tecnologia", "Tech", "tech"),
    Activity(
        "6204-0/00", "Consultoria em tecnologia da informação", "Consultoria em Informática", "Sistemas", "sistemas"
    ),
    Activity("6920-6/01", "Atividades de contabilidade", "Serviços Contábeis", "Contabilidade", "contabilidade"),
    Activity("6911-7/01", "Serviços advocatícios", "Advogados Associados", "Advocacia", "advocacia"),
    Activity(
        "8630-5/03", "Atividade médica ambulatorial restrita a consultas", "Serviços Médicos", "Clínica", "clinica"
    ),
    Activity("8630-5/04", "Atividade odontológica", "Odontologia", "Odonto", "odonto"),
    Activity(
        "4930-2/02",
        "Transporte rodoviário de carga, exceto produtos perigosos e mudanças, "
        "intermunicipal, interestadual e internacional",
        "Transportes",
        "Transportadora",
        "transportes",
    ),
    Activity(
        "4744-0/99",
        "Comércio varejista de materiais de construção em geral",
        "Comércio de Materiais de Construção",
        "Materiais de Construção",
        "materiais",
    ),
    Activity("4721-1/02", "Padaria e confeitaria com predominância de revenda", "Panificadora", "Padaria", "padaria"),
    Activity(
        "1091-1/02",
        "Fabricação de produtos de padaria e confeitaria com predominância de produção própria",
        "Indústria de Panificação",
        "Confeitaria",
        "confeitaria",
    ),
    Activity(
        "8599-6/04",
        "Treinamento em desenvolvimento profissional e gerencial",
        "Treinamentos",
        "Escola de Negócios",
        "treinamentos",
    ),
    Activity(
        "7020-4/00",
        "Atividades de consultoria em gestão empresarial, exceto consultoria técnica específica",
        "Consultoria Empresarial",
        "Consultoria",
        "consultoria",
    ),
    Activity(
        "8211-3/00",
        "Serviços combinados de escritório e apoio administrativo",
        "Serviços Administrativos",
        "Escritório",
        "escritorio",
    ),
    Activity("4399-1/03", "Obras de alvenaria", "Construção Civil", "Obras", "obras"),
    Activity("4321-5/00", "Instalação e manutenção elétrica", "Instalações Elétricas", "Elétrica", "eletrica"),
    Activity(
        "4789-0/04",
        "Comércio varejista de animais vivos e de artigos e alimentos para animais de estimação",
        "Pet Shop",
        "Pet Shop",
        "petshop",
    ),
    Activity("7500-1/00", "Atividades veterinárias", "Clínica Veterinária", "Veterinária", "vet"),
    Activity("9313-1/00", "Atividades de condicionamento físico", "Academia de Ginástica", "Academia", "academia"),
    Activity("5510-8/01", "Hotéis", "Hotelaria", "Hotel", "hotel"),
    Activity(
        "4731-8/00",
        "Comércio varejista de combustíveis para veículos automotores",
        "Comércio de Combustíveis",
        "Posto",
        "posto",
    ),
    Activity(
        "4530-7/03",
        "Comércio a varejo de peças e acessórios novos para veículos automotores",
        "Comércio de Autopeças",
        "Autopeças",
        "autopecas",
    ),
    Activity(
        "4639-7/01",
        "Comércio atacadista de produtos alimentícios em geral",
        "Distribuidora de Alimentos",
        "Distribuidora",
        "distribuidora",
    ),
    Activity(
        "4751-2/01",
        "Comércio varejista especializado de equipamentos e suprimentos de informática",
        "Comércio de Informática",
        "Informática",
        "informatica",
    ),
    Activity(
        "4753-9/00",
        "Comércio varejista especializado de eletrodomésticos e equipamentos de áudio e vídeo",
        "Comércio de Eletrodomésticos",
        "Eletro",
        "eletro",
    ),
    Activity("4774-1/00", "Comércio varejista de artigos de óptica", "Óptica", "Óptica", "otica"),
    Activity(
        "6821-8/01",
        "Corretagem na compra e venda e avaliação de imóveis",
        "Negócios Imobiliários",
        "Imobiliária",
        "imoveis",
    ),
    Activity("8121-4/00", "Limpeza em prédios e em domicílios", "Serviços de Limpeza", "Limpeza", "limpeza"),
    Activity(
        "8011-1/01", "Atividades de vigilância e segurança privada", "Segurança Privada", "Segurança", "seguranca"
    ),
    Activity("0151-2/01", "Criação de bovinos para corte", "Agropecuária", "Fazenda", "agro"),
    Activity("0115-6/00", "Cultivo de soja", "Agrícola", "Agrícola", "agricola"),
    Activity(
        "1412-6/01",
        "Confecção de peças do vestuário, exceto roupas íntimas e as confeccionadas sob medida",
        "Confecções",
        "Confecções",
        "confeccoes",
    ),
    Activity("2511-0/00", "Fabricação de estruturas metálicas", "Estruturas Metálicas", "Metalúrgica", "metalurgica"),
    Activity("7112-0/00", "Serviços de engenharia", "Engenharia", "Engenharia", "engenharia"),
    Activity("5320-2/02", "Serviços de entrega rápida", "Entregas Rápidas", "Express", "express"),
)

# (legal nature, company-name suffix, share of companies)
LEGAL_NATURES: tuple[tuple[str, str, float], ...] = (
    ("206-2 - Sociedade Empresária Limitada", "Ltda", 0.62),
    ("213-5 - Empresário (Individual)", "ME", 0.22),
    ("224-0 - Sociedade Simples Limitada", "Ltda", 0.09),
    ("205-4 - Sociedade Anônima Fechada", "S.A.", 0.06),
    ("204-6 - Sociedade Anônima Aberta", "S.A.", 0.01),
)
