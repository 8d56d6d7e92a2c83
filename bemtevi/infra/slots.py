"""Numbered files that several processes sharing one folder each take one of, while they run.

In cluster mode every API process keeps its own DuckDB replica of the read models, and several of them
may share one ``var/`` folder (uvicorn's workers, or two servers started on one port). Each takes the
first slot ``<stem>-<n>`` whose lock file no running process holds (``fcntl.flock``, released by the
kernel when the process ends, however it ends), and keeps it until it stops; a process started again
takes a free slot, so it resumes from the file a stopped process left.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Slot:
    index: int
    path: Path  # the slot's data file (``<stem>-<n><suffix>``), its owner's alone while the lock is held
    lock_path: Path
    _fd: int | None

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)  # closing the descriptor releases the lock


def claim_slot(folder: Path, stem: str, suffix: str, limit: int = 1024) -> Slot:
    """The first free slot ``folder/<stem>-<n><suffix>`` (n from 0), locked by this process until released."""
    folder.mkdir(parents=True, exist_ok=True)
    for index in range(limit):
        lock_path = folder / f"{stem}-{index}.lock"
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        return Slot(index, folder / f"{stem}-{index}{suffix}", lock_path, fd)
    raise RuntimeError(f"no free slot {stem}-<n> in {folder}: {limit} processes hold one")
