"""A throwaway PostgreSQL server for tests and benchmarks: ``initdb`` + ``pg_ctl`` in a
temporary directory, listening on 127.0.0.1 on a free port only, stopped (and its
directory removed) by ``stop()`` or at interpreter exit.

The binaries come from Debian's ``postgresql`` package (``make test`` installs it when
missing). As root, the server runs as the ``postgres`` user (``initdb`` refuses root).
Durability settings are relaxed (``fsync=off``): the data is thrown away afterwards.
"""

from __future__ import annotations

import atexit
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "bendscope"


def bindir() -> Path | None:
    """Where initdb and pg_ctl are, or None when PostgreSQL is not installed."""
    for found in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True):
        if (Path(found) / "initdb").exists():
            return Path(found)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Cluster:
    """One running PostgreSQL server. ``url(dbname)`` gives a connection URL."""

    def __init__(self, *, max_connections: int = 100) -> None:
        found = bindir()
        if found is None:
            raise RuntimeError("PostgreSQL is not installed (Debian package 'postgresql'; `make test` installs it)")
        self.bin = found
        self._as_root = os.geteuid() == 0
        # as root the server runs as "postgres", which must reach its directory: /tmp, not $TMPDIR
        parent = "/tmp" if self._as_root and os.path.isdir("/tmp") else None
        self.root = Path(tempfile.mkdtemp(prefix="bendscope-pg-", dir=parent))
        self.data = self.root / "data"
        self.port = free_port()
        if self._as_root:
            shutil.chown(self.root, "postgres", "postgres")
            self.root.chmod(0o700)
        self._run(
            [str(self.bin / "initdb"), "-D", str(self.data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"],
            "initdb",
        )
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.root} "
            f"-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections={max_connections} "
            "-c shared_buffers=128MB"
        )
        self._run(
            [
                str(self.bin / "pg_ctl"),
                "-D",
                str(self.data),
                "-l",
                str(self.root / "log"),
                "-o",
                options,
                "-w",
                "start",
            ],
            "pg_ctl start",
        )
        self.running = True
        atexit.register(self.stop)
        self._wait()

    def _run(self, argv: list[str], what: str) -> None:
        if self._as_root:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, cwd=self.root)
        if done.returncode:
            log = self.root / "log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise RuntimeError(f"{what} failed ({done.returncode}): {done.stderr.strip()}\n{tail}")

    def _wait(self) -> None:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise RuntimeError("PostgreSQL did not start listening within 30 s")

    def url(self, dbname: str = "postgres", **params: str) -> str:
        query = "&".join(f"{k}={v}" for k, v in params.items())
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{dbname}" + (f"?{query}" if query else "")

    def create_database(self, name: str) -> str:
        """A fresh, empty database; returns its URL."""
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0 STRATEGY FILE_COPY')
        return self.url(name)

    def stop(self) -> None:
        if not getattr(self, "running", False):
            return
        self.running = False
        try:
            self._run([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"], "pg_ctl stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Cluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
