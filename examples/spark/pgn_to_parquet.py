"""Decode a directory of sharded PGN files into a partitioned Parquet dataset.

Each shard (``*.pgn``, ``*.pgn.zst``, ``*.pgn.gz``, ``*.pgn.bz2``, or a
``*.parquet`` file of the lichess dataset on Hugging Face: a ``movetext``
column and tag columns) is decoded
by the ``gamerec`` Python package inside ``mapInArrow`` on the executors, one
shard per task; the record batches go from Rust to Spark as Arrow without a
Python object per value. The output is partitioned by shard. Games that fail to read and shards
that cannot be read are written to a problems table beside the output
(``OUTPUT_problems``, one row per diagnostic and a summary row per shard);
``--errors fail`` (the default) then exits 1, ``--errors warn`` warns.

Local run::

    PYSPARK_PYTHON=$VIRTUAL_ENV/bin/python spark-submit --master 'local[2]' \\
        examples/spark/pgn_to_parquet.py shards/ out/games.parquet --table games

On a cluster, the shards must be on a file system every executor mounts at
the same path (NFS, a mounted bucket, ``/dbfs``), and the executors need the
``gamerec`` wheel: ``pip install gamerec-*.whl`` on each node, or shipped
with the job (a wheel is a zip, which Spark unpacks beside each executor;
the workers' Python needs only pyarrow; see docs/data.md)::

    cp gamerec-*-cp39-abi3-manylinux*.whl gamerec.zip
    spark-submit --master spark://HOST:7077 \\
        --archives gamerec.zip#gamerec_lib \\
        --conf spark.executorEnv.PYTHONPATH=gamerec_lib \\
        examples/spark/pgn_to_parquet.py /mnt/lichess/2024-01/ /mnt/out/games --table games
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
from typing import Iterator, List, Optional

import pyarrow as pa

SHARD_PATTERNS = ("*.pgn", "*.pgn.zst", "*.pgn.gz", "*.pgn.bz2", "*.parquet")


def shard_paths(directory: str) -> List[str]:
    """The shard files of ``directory``, sorted by name."""
    found = set()
    for pattern in SHARD_PATTERNS:
        found.update(glob.glob(os.path.join(directory, pattern)))
    return sorted(os.path.abspath(p) for p in found)


def shard_name(path: str) -> str:
    """``lichess-0003.pgn.zst`` -> ``lichess-0003``, ``train-0001.parquet`` -> ``train-0001``."""
    name = os.path.basename(path)
    if name.endswith(".parquet"):
        return name[: -len(".parquet")]
    return name.split(".pgn", 1)[0]


def _spark_type(t: pa.DataType) -> pa.DataType:
    # The tables hold no unsigned ids and no time type; only the NAGs are uint8,
    # which mapInArrow (from_arrow_schema) cannot take: widen them.
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


PROBLEM_FIELDS = [
    ("problem_path", pa.string()),
    ("problem_line", pa.int64()),
    ("problem_column", pa.int64()),
    ("problem_offset", pa.int64()),
    ("problem_severity", pa.string()),
    ("problem_message", pa.string()),
    ("problem_games", pa.int64()),
    ("problem_failed", pa.int64()),
]
"""The problems table's columns (without the ``problem_`` prefix), plus
``shard``: one row per diagnostic, and one ``severity = "summary"`` row per
shard whose ``games`` and ``failed`` are its counts (as ``gamerec check``
counts them)."""


def combined_schema(target: pa.Schema) -> pa.Schema:
    """The schema ``mapInArrow`` yields: the table's rows and problem rows
    in one stream (a problem row has its ``problem_severity`` set)."""
    fields = [pa.field(f.name, f.type, True) for f in target]
    fields += [pa.field(name, t, True) for name, t in PROBLEM_FIELDS]
    return pa.schema(fields)


def _problem_batch(schema: pa.Schema, shard: str, rows: List[dict]) -> pa.RecordBatch:
    columns = []
    for field in schema:
        if field.name == "shard":
            columns.append(pa.array([shard] * len(rows), pa.string()))
        elif field.name.startswith("problem_"):
            key = field.name[len("problem_"):]
            columns.append(pa.array([r.get(key) for r in rows], field.type))
        else:
            columns.append(pa.nulls(len(rows), field.type))
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def decode_shards(table: str, target: pa.Schema):
    """The ``mapInArrow`` function: batches of shard paths in, table
    batches and problem rows out (``combined_schema(target)``)."""
    combined = combined_schema(target)

    def decode(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import gamerec

        for batch in batches:
            for path in batch.column("path").to_pylist():
                stream = gamerec.arrow_stream(path, table=table, threads=1, errors="skip")
                shard = shard_name(path)
                for rows in pa.RecordBatchReader.from_stream(stream):
                    n = rows.num_rows
                    columns = [
                        rows.column(i).cast(target.field(i).type) for i in range(rows.num_columns)
                    ]
                    columns.append(pa.array([shard] * n, pa.string()))
                    columns += [pa.nulls(n, t) for _, t in PROBLEM_FIELDS]
                    yield pa.RecordBatch.from_arrays(columns, schema=combined)
                problems = stream.problems()
                rows = [
                    {
                        "path": d.path,
                        "line": d.line,
                        "column": d.column,
                        "offset": d.offset,
                        "severity": "error" if d.is_error else "warning",
                        "message": d.message,
                    }
                    for d in problems
                ]
                rows.append(
                    {
                        "path": path,
                        "severity": "summary",
                        "message": problems.summary(),
                        "games": problems.games,
                        "failed": problems.failed,
                    }
                )
                yield _problem_batch(combined, shard, rows)

    return decode


def problems_path(output: str) -> str:
    """Where the problems table goes: beside the output, ``<output>_problems``."""
    return output.rstrip("/") + "_problems"


def run(
    spark,
    input_dir: str,
    output: str,
    table: str = "games",
    errors: str = "fail",
    problems: Optional[str] = None,
) -> dict:
    """Decodes every shard of ``input_dir``, writes ``output`` partitioned by
    shard and the problems table (``problems``, by default
    :func:`problems_path`) partitioned the same way. Returns the counts
    (``games``, ``failed``, ``errors``, ``warnings``, ``rows``). When a game
    failed or a shard could not be read, ``errors="fail"`` raises
    ``SystemExit`` after both are written, ``"warn"`` prints a warning."""
    from pyspark import StorageLevel
    from pyspark.sql import functions as F
    from pyspark.sql.pandas.types import from_arrow_schema

    if errors not in ("fail", "warn"):
        raise ValueError(f"errors={errors!r}: expected fail or warn")
    shards = shard_paths(input_dir)
    if not shards:
        raise SystemExit(f"{input_dir}: no PGN shards ({', '.join(SHARD_PATTERNS)})")
    target = spark_arrow_schema(table)
    combined = combined_schema(target)
    paths = spark.createDataFrame([(p,) for p in shards], "path string")
    paths = paths.repartition(len(shards), "path")
    both = paths.mapInArrow(decode_shards(table, target), from_arrow_schema(combined))
    both = both.persist(StorageLevel.DISK_ONLY)
    try:
        is_problem = F.col("problem_severity").isNotNull()
        data = both.where(~is_problem).select(*[f.name for f in target])
        data.write.mode("overwrite").partitionBy("shard").parquet(output)
        found = both.where(is_problem).select(
            "shard", *[F.col(name).alias(name[len("problem_"):]) for name, _ in PROBLEM_FIELDS]
        )
        found.write.mode("overwrite").partitionBy("shard").parquet(problems or problems_path(output))
        counts = found.agg(
            F.sum(F.when(F.col("severity") == "summary", F.col("games"))).alias("games"),
            F.sum(F.when(F.col("severity") == "summary", F.col("failed"))).alias("failed"),
            F.sum((F.col("severity") == "error").cast("long")).alias("errors"),
            F.sum((F.col("severity") == "warning").cast("long")).alias("warnings"),
        ).first()
        summary = {k: int(counts[k] or 0) for k in ("games", "failed", "errors", "warnings")}
        summary["rows"] = data.count()
    finally:
        both.unpersist()
    line = (
        f"{summary['rows']} rows from {summary['games']} games "
        f"({summary['failed']} with errors), {summary['errors']} errors, "
        f"{summary['warnings']} warnings; problems in {problems or problems_path(output)}"
    )
    if summary["errors"] and errors == "fail":
        raise SystemExit(f"gamerec: {line}")
    if summary["errors"]:
        print(f"gamerec: warning: {line}", file=sys.stderr)
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input_dir", help="directory of PGN shards")
    parser.add_argument("output", help="output Parquet dataset directory")
    parser.add_argument("--table", choices=["games", "positions"], default="games")
    parser.add_argument(
        "--errors",
        choices=["fail", "warn"],
        default="fail",
        help="when a game fails to read or a shard cannot be read: exit 1 (fail, the "
        "default) or print a warning and exit 0 (warn); both write the data and the "
        "problems table",
    )
    parser.add_argument(
        "--problems", help="problems table directory (default: OUTPUT_problems beside OUTPUT)"
    )
    args = parser.parse_args()

    from pyspark.sql import SparkSession

    spark = SparkSession.builder.appName("gamerec-pgn-to-parquet").getOrCreate()
    try:
        summary = run(spark, args.input_dir, args.output, args.table, args.errors, args.problems)
        print(
            f"{summary['rows']} rows from {summary['games']} games "
            f"({summary['failed']} with errors)",
            file=sys.stderr,
        )
    finally:
        spark.stop()


if __name__ == "__main__":
    main()
