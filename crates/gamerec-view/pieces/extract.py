"""Writes cburnett.txt from the python-chess package (PyPI `chess`, GPL-3.0+).

The pieces are Colin M.L. Burnett's set as python-chess ships it in
`chess.svg.PIECES`. Run: python extract.py > cburnett.txt
"""

import chess.svg

for symbol in "KQRBNPkqrbnp":
    print(symbol, chess.svg.PIECES[symbol].replace("\n", " "))
