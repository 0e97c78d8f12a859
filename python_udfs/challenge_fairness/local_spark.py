"""A local standalone Spark cluster with its Thrift Server, for the Spark path's tests and bench.

Everything comes from the pyspark wheel (no download; `make spark-cluster` installs it into
`.spark/`, apart from the virtual environment): a master, one worker and the Spark Thrift
Server (`HiveThriftServer2`), bound to 127.0.0.1. dbt-spark's `method: thrift`
connects to the Thrift Server. Tables are parquet files under `<workdir>/warehouse`, and the
Derby metastore lives in `<workdir>` too, so a workdir is one self-contained lakehouse.

    python -m challenge_fairness.local_spark start <workdir>   # prints the warehouse dir
    python -m challenge_fairness.local_spark stop <workdir>

`LocalSpark` is a context manager that stops everything it started, also when the body
raises. The processes are started in their own session, so one kill of the session stops
each of them with its children (the worker's executors).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType

HOST = "127.0.0.1"
MASTER_PORT = 7077
THRIFT_PORT = 10000
# The Thrift Server's own settings: parquet tables (Delta's jars are not available offline),
# timestamps written as plain microseconds without a time zone shift, the session in UTC.
SPARK_CONF = {
    "spark.sql.sources.default": "parquet",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.outputTimestampType": "TIMESTAMP_MICROS",
    "spark.sql.shuffle.partitions": "8",
    "spark.ui.enabled": "false",
}


REPO_SPARK_HOME = Path(__file__).resolve().parents[2] / ".spark" / "pyspark"


def spark_home() -> Path:
    """The Spark distribution: env CHALLENGE_FAIRNESS_SPARK_HOME, else the pyspark wheel
    `make spark-cluster` put in `.spark/`."""
    configured = os.environ.get("CHALLENGE_FAIRNESS_SPARK_HOME")
    home = Path(configured) if configured else REPO_SPARK_HOME
    if not (home / "bin" / "spark-class").exists():
        raise RuntimeError(
            f"no Spark distribution at {home} (bin/spark-class): run `make spark-cluster`, "
            "or set CHALLENGE_FAIRNESS_SPARK_HOME to a Spark home (or an installed pyspark)"
        )
    return home


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((HOST, port)) == 0


class LocalSpark:
    """Start a master, a worker and the Thrift Server under `workdir`; stop them on exit."""

    def __init__(
        self,
        workdir: Path,
        cores: int = 2,
        memory: str = "4g",
        driver_memory: str = "2g",
        thrift_port: int = THRIFT_PORT,
        start_timeout: float = 240.0,
    ) -> None:
        self.workdir = Path(workdir).resolve()
        self.cores = cores
        self.memory = memory
        self.driver_memory = driver_memory
        self.thrift_port = thrift_port
        self.start_timeout = start_timeout
        self.processes: list[subprocess.Popen[bytes]] = []

    @property
    def warehouse(self) -> Path:
        """Where Spark writes its tables: `<warehouse>/<schema>.db/<table>/part-*.parquet`."""
        return self.workdir / "warehouse"

    def _environment(self) -> dict[str, str]:
        home = spark_home()
        environment = dict(os.environ)
        environment.update(
            SPARK_HOME=str(home),
            SPARK_LOCAL_IP=HOST,
            SPARK_LOG_DIR=str(self.workdir / "logs"),
            SPARK_WORKER_DIR=str(self.workdir / "work"),
            PYSPARK_PYTHON=sys.executable,
        )
        return environment

    def _spawn(self, name: str, command: list[str]) -> None:
        log = (self.workdir / "logs" / f"{name}.log").open("wb")
        process = subprocess.Popen(
            command,
            cwd=self.workdir,
            env=self._environment(),
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.processes.append(process)
        (self.workdir / "pids").mkdir(exist_ok=True)
        (self.workdir / "pids" / name).write_text(str(process.pid))

    def _wait_for(self, port: int, what: str, deadline: float) -> None:
        while not _port_open(port):
            for process in self.processes:
                if process.poll() is not None:
                    raise RuntimeError(
                        f"{what} did not start: a Spark process exited with code "
                        f"{process.returncode} (logs in {self.workdir / 'logs'})"
                    )
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{what} did not answer on {HOST}:{port} within {self.start_timeout:.0f} s "
                    f"(logs in {self.workdir / 'logs'})"
                )
            time.sleep(0.5)

    def start(self) -> LocalSpark:
        """Start the cluster and wait until the Thrift Server answers."""
        for port in (MASTER_PORT, self.thrift_port):
            if _port_open(port):
                raise RuntimeError(f"{HOST}:{port} is already in use: is another Spark running?")
        for folder in ("logs", "work", "warehouse"):
            (self.workdir / folder).mkdir(parents=True, exist_ok=True)
        bin_dir = spark_home() / "bin"
        master = f"spark://{HOST}:{MASTER_PORT}"
        deadline = time.monotonic() + self.start_timeout
        try:
            self._spawn(
                "master",
                [str(bin_dir / "spark-class"), "org.apache.spark.deploy.master.Master",
                 "--host", HOST, "--port", str(MASTER_PORT), "--webui-port", "0"],
            )  # fmt: skip
            self._wait_for(MASTER_PORT, "the Spark master", deadline)
            self._spawn(
                "worker",
                [str(bin_dir / "spark-class"), "org.apache.spark.deploy.worker.Worker", master,
                 "--host", HOST, "--cores", str(self.cores), "--memory", self.memory,
                 "--webui-port", "0"],
            )  # fmt: skip
            conf = dict(SPARK_CONF, **{"spark.sql.warehouse.dir": str(self.warehouse)})
            command = [
                str(bin_dir / "spark-submit"),
                "--class", "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2",
                "--master", master,
                "--driver-memory", self.driver_memory,
                "--executor-memory", self.memory,
                "--driver-java-options", f"-Dderby.system.home={self.workdir}",
            ]  # fmt: skip
            for key, value in conf.items():
                command += ["--conf", f"{key}={value}"]
            command += [
                "--hiveconf", f"hive.server2.thrift.bind.host={HOST}",
                "--hiveconf", f"hive.server2.thrift.port={self.thrift_port}",
                "--hiveconf", f"javax.jdo.option.ConnectionURL=jdbc:derby:;databaseName="
                f"{self.workdir / 'metastore_db'};create=true",
                "spark-internal",
            ]  # fmt: skip
            self._spawn("thriftserver", command)
            self._wait_for(self.thrift_port, "the Spark Thrift Server", deadline)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Stop every process this cluster started (and their children), the last first."""
        pid_dir = self.workdir / "pids"
        pids = [int(path.read_text()) for path in pid_dir.iterdir()] if pid_dir.exists() else []
        pids += [process.pid for process in self.processes]
        stop_sessions(sorted(set(pids), reverse=True))
        for process in self.processes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=30)
        self.processes.clear()
        if pid_dir.exists():
            for path in pid_dir.iterdir():
                path.unlink()

    def __enter__(self) -> LocalSpark:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()


def stop_sessions(pids: list[int], grace: float = 15.0) -> None:
    """SIGTERM each process's session, then SIGKILL what is still alive after `grace`."""
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for pid in pids:
        while time.monotonic() < deadline:
            try:
                os.killpg(pid, 0)
            except (ProcessLookupError, PermissionError):
                break
            time.sleep(0.2)
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("action", choices=["start", "stop"])
    parser.add_argument("workdir", type=Path, help="folder of the logs, metastore and warehouse")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--memory", default="4g", help="the worker's (and executors') memory")
    arguments = parser.parse_args(argv)
    cluster = LocalSpark(arguments.workdir, cores=arguments.cores, memory=arguments.memory)
    if arguments.action == "start":
        cluster.start()
        print(cluster.warehouse)
    else:
        cluster.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
