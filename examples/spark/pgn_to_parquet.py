"""Decode a directory of sharded PGN files into a partitioned Parquet dataset.

Each shard (``*.pgn``, ``*.pgn.zst``, ``*.pgn.gz``, ``*.pgn.bz2``) is decoded
by the ``gamerec`` Python package inside ``mapInArrow`` on the executors, one
shard per task; the record batches go from Rust to Spark as Arrow without a
Python object per value. The output is partitioned by shard.

Local run::

    PYSPARK_PYTHON=$VIRTUAL_ENV/bin/python spark-submit --master 'local[2]' \\
        examples/spark/pgn_to_parquet.py shards/ out/games.parquet --table games

On a cluster, the shards must be on a file system every executor mounts at
the same path (NFS, a mounted bucket, ``/dbfs``), and the executors need the
``gamerec`` wheel (``pip install gamerec-*.whl`` on each node, or
``--archives venv.tar.gz#venv`` with ``PYSPARK_PYTHON=./venv/bin/python``)::

    spark-submit --master yarn --deploy-mode cluster \\
        --archives gamerec-venv.tar.gz#venv \\
        --conf spark.pyspark.python=./venv/bin/python \\
        examples/spark/pgn_to_parquet.py /mnt/lichess/2024-01/ /mnt/out/games --table games
"""

from __future__ import annotations

import argparse
import glob
import os
from typing import Iterator, List

import pyarrow as pa

SHARD_PATTERNS = ("*.pgn", "*.pgn.zst", "*.pgn.gz", "*.pgn.bz2")


def shard_paths(directory: str) -> List[str]:
    """The shard files of ``directory``, sorted by name."""
    found = set()
    for pattern in SHARD_PATTERNS:
        found.update(glob.glob(os.path.join(directory, pattern)))
    return sorted(os.path.abspath(p) for p in found)


def shard_name(path: str) -> str:
    """``lichess-0003.pgn.zst`` -> ``lichess-0003``."""
    name = os.path.basename(path)
    return name.split(".pgn", 1)[0]


def _spark_type(t: pa.DataType) -> pa.DataType:
    # Spark has no unsigned integers and no time of day: widen and count seconds.
    if pa.types.is_uint8(t):
        return pa.int16()
    if pa.types.is_unsigned_integer(t):
        return pa.int64()
    if pa.types.is_time(t):
        return pa.int32()
    if pa.types.is_list(t):
        return pa.list_(_spark_type(t.value_type))
    return t


def spark_arrow_schema(table: str) -> pa.Schema:
    """The gamerec table's Arrow schema in types Spark can hold, plus ``shard``."""
    import gamerec

    base = pa.RecordBatchReader.from_stream(gamerec.arrow_stream([], table=table)).schema
    fields = [pa.field(f.name, _spark_type(f.type), f.nullable) for f in base]
    return pa.schema(fields + [pa.field("shard", pa.string(), False)])


def decode_shards(table: str, target: pa.Schema):
    """The ``mapInArrow`` function: batches of shard paths in, table batches out."""

    def decode(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import gamerec

        for batch in batches:
            for path in batch.column("path").to_pylist():
                stream = gamerec.arrow_stream(path, table=table, threads=1)
                shard = shard_name(path)
                for rows in pa.RecordBatchReader.from_stream(stream):
                    columns = [
                        rows.column(i).cast(target.field(i).type) for i in range(rows.num_columns)
                    ]
                    columns.append(pa.array([shard] * rows.num_rows, pa.string()))
                    yield pa.RecordBatch.from_arrays(columns, schema=target)

    return decode


def run(spark, input_dir: str, output: str, table: str = "games") -> None:
    """Decodes every shard of ``input_dir`` and writes ``output`` partitioned by shard."""
    from pyspark.sql.pandas.types import from_arrow_schema

    shards = shard_paths(input_dir)
    if not shards:
        raise SystemExit(f"{input_dir}: no PGN shards ({', '.join(SHARD_PATTERNS)})")
    target = spark_arrow_schema(table)
    paths = spark.createDataFrame([(p,) for p in shards], "path string")
    paths = paths.repartition(len(shards), "path")
    rows = paths.mapInArrow(decode_shards(table, target), from_arrow_schema(target))
    rows.write.mode("overwrite").partitionBy("shard").parquet(output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input_dir", help="directory of PGN shards")
    parser.add_argument("output", help="output Parquet dataset directory")
    parser.add_argument("--table", choices=["games", "positions"], default="games")
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("gamerec-pgn-to-parquet").getOrCreate()
    try:
        run(spark, args.input_dir, args.output, args.table)
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
