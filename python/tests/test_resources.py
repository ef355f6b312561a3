"""Resources and responsiveness: no leak over 1,000 opens, the GIL is
released while a query runs, Ctrl-C cancels a long query."""

from __future__ import annotations

import _thread
import os
import threading
import time

import pytest

import jetsql
from conftest import oracle_counts

# a join too big to finish: 2,155^3 rows
ENDLESS = "SELECT count(*) AS n FROM [Order Details] a, [Order Details] b, [Order Details] c"


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def test_a_thousand_opens_leak_neither_files_nor_memory(nwind):
    for _ in range(50):  # warm up: the query runtime's threads, allocator pools
        with jetsql.open(nwind) as db:
            db.read("Shippers")
            db.sql("SELECT count(*) FROM Shippers")
    fds, rss = _open_fds(), _rss_bytes()
    for i in range(1000):
        if i % 2:
            with jetsql.open(nwind) as db:
                db.read("Shippers")
                db.sql("SELECT count(*) FROM Shippers")
        else:
            # no close: dropping the last reference releases the file
            jetsql.open(nwind).tables()
    assert _open_fds() <= fds + 2
    grown = _rss_bytes() - rss
    assert grown < 64 << 20, f"RSS grew by {grown} bytes over 1,000 opens"


def test_a_long_query_lets_other_threads_run_and_stops_on_ctrl_c(nwind, oracle):
    shippers = oracle_counts(oracle, "mdbtools/nwind.mdb.tsv")["Shippers"]
    db = jetsql.open(nwind)
    stop = threading.Event()
    ticks = [0]

    def tick():
        # pure Python: it runs only while the query's thread lets go of the GIL
        while not stop.is_set():
            ticks[0] += 1
            time.sleep(0.001)

    ticker = threading.Thread(target=tick)
    timer = threading.Timer(1.0, _thread.interrupt_main)  # Ctrl-C after 1 s
    ticker.start()
    start = time.perf_counter()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            db.sql(ENDLESS)
        took = time.perf_counter() - start
    finally:
        timer.cancel()
        stop.set()
        ticker.join()
    assert 1.0 <= took < 3.0, took
    # about 1,000 ticks fit in the second the query ran
    assert ticks[0] >= 100, ticks[0]
    # the database is still usable
    assert db.sql("SELECT count(*) AS n FROM Shippers").column("n").to_pylist() == [shippers]
