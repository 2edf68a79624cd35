"""The cluster recipe of docs/data.md on a real Spark standalone cluster: a
master and two workers started with pyspark's ``sbin/spark-daemon.sh`` on
loopback, whose executors run a Python that has pyarrow but no gamerec. The
example job (examples/spark/pgn_to_parquet.py) is submitted with the wheel
shipped the documented way (``--archives gamerec.zip#gamerec_lib`` and
``spark.executorEnv.PYTHONPATH=gamerec_lib``); its dataset must hold every
game of the shards with the keys gamerec gives them locally, decoded on both
workers.

Slow (a JVM per daemon, about a minute) and opt-in: set
``GAMEREC_CLUSTER_PYTHON`` to the workers' interpreter (a virtualenv with
pyarrow, without gamerec). The wheel is ``GAMEREC_WHEEL``, else
``python/target/wheels/gamerec-*.whl``, else the installed package zipped
as a wheel would be.
"""

from __future__ import annotations

import glob
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

import gamerec

from conftest import REPO

WORKER_PYTHON = os.environ.get("GAMEREC_CLUSTER_PYTHON")
pytestmark = pytest.mark.skipif(
    not WORKER_PYTHON, reason="slow: set GAMEREC_CLUSTER_PYTHON to run the standalone-cluster test"
)
DEADLINE_S = 420


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wheel_zip(out: pathlib.Path) -> pathlib.Path:
    """The gamerec wheel as ``gamerec.zip`` (a wheel is a zip; Spark unpacks
    archives by their name's extension)."""
    target = out / "gamerec.zip"
    wheel = os.environ.get("GAMEREC_WHEEL") or next(
        iter(sorted(glob.glob(str(REPO / "python/target/wheels/gamerec-*.whl")))), None
    )
    if wheel:
        shutil.copyfile(wheel, target)
        return target
    package = pathlib.Path(gamerec.__file__).parent
    with zipfile.ZipFile(target, "w") as z:
        for path in package.rglob("*"):
            if "__pycache__" not in path.parts and path.is_file():
                z.write(path, pathlib.Path("gamerec") / path.relative_to(package))
    return target


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    pyspark = pytest.importorskip("pyspark")
    if shutil.which("java") is None:
        pytest.fail("java is needed for the cluster test")
    home = pathlib.Path(pyspark.__file__).parent
    root = tmp_path_factory.mktemp("cluster")
    probe = subprocess.run(
        [WORKER_PYTHON, "-c", "import pyarrow; import gamerec"], capture_output=True, cwd=root
    )
    assert b"No module named 'gamerec'" in probe.stderr, "the workers' Python must lack gamerec"
    env = dict(
        os.environ,
        SPARK_HOME=str(home),
        SPARK_LOG_DIR=str(root / "logs"),
        SPARK_PID_DIR=str(root / "pids"),
        SPARK_WORKER_DIR=str(root / "work"),
        SPARK_LOCAL_IP="127.0.0.1",
        SPARK_MASTER_HOST="127.0.0.1",
        SPARK_IDENT_STRING=f"gamerec-test-{os.getpid()}",
    )
    daemon = [str(home / "sbin/spark-daemon.sh")]
    port, ui = free_port(), free_port()
    master = f"spark://127.0.0.1:{port}"
    started = []

    def start(cls, instance, *args):
        subprocess.run(daemon + ["start", cls, str(instance), *args], env=env, check=True, timeout=60)
        started.append((cls, instance))

    try:
        start("org.apache.spark.deploy.master.Master", 1, "--host", "127.0.0.1", "--port", str(port),
              "--webui-port", str(ui))
        for n in (1, 2):
            start("org.apache.spark.deploy.worker.Worker", n, "--host", "127.0.0.1", "--cores", "1",
                  "--memory", "1g", "--webui-port", str(free_port()), master)
        end = time.monotonic() + 90
        alive = 0
        while time.monotonic() < end:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as r:
                    alive = json.load(r).get("aliveworkers", 0)
            except OSError:
                alive = 0
            if alive == 2:
                break
            time.sleep(1)
        assert alive == 2, f"{alive} workers registered; logs in {root / 'logs'}"
        yield master, env, root
    finally:
        for cls, instance in reversed(started):
            subprocess.run(daemon + ["stop", cls, str(instance)], env=env, timeout=60)


def test_the_documented_recipe_runs_on_a_standalone_cluster(cluster, lichess, tmp_path):
    master, env, root = cluster
    text = lichess.read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r"(?m)^\[Event ", text)]
    shards = tmp_path / "shards"
    shards.mkdir()
    bounds = [starts[len(starts) * k // 4] for k in range(4)] + [len(text)]
    for k in range(4):
        (shards / f"lichess-{k:04}.pgn").write_text(text[bounds[k]:bounds[k + 1]], encoding="utf-8")
    archive = wheel_zip(tmp_path)
    output = tmp_path / "out" / "games"
    submit = [
        str(pathlib.Path(env["SPARK_HOME"]) / "bin/spark-submit"),
        "--master", master,
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.driver.host=127.0.0.1",
        "--conf", "spark.executor.memory=768m",
        "--archives", f"{archive}#gamerec_lib",
        "--conf", "spark.executorEnv.PYTHONPATH=gamerec_lib",
        "--conf", f"spark.pyspark.python={WORKER_PYTHON}",
        "--conf", f"spark.pyspark.driver.python={sys.executable}",
        str(REPO / "examples/spark/pgn_to_parquet.py"), str(shards), str(output), "--table", "games",
    ]
    run = subprocess.run(submit, env=env, capture_output=True, text=True, timeout=DEADLINE_S)
    assert run.returncode == 0, run.stderr[-4000:]
    table = ds.dataset(str(output), format="parquet", partitioning="hive").to_table()
    local = pa.concat_tables([gamerec.to_arrow(p) for p in sorted(shards.glob("*.pgn"))])
    assert table.num_rows == local.num_rows == 438
    assert sorted(table.column("game_key").to_pylist()) == sorted(local.column("game_key").to_pylist())
    # Both workers ran executors, each with the wheel unpacked beside it.
    work = root / "work"
    executors = [p for p in work.glob("app-*/*") if (p / "gamerec_lib" / "gamerec").is_dir()]
    assert len(executors) >= 2, sorted(str(p) for p in work.glob("app-*/*"))
