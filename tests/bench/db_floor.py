"""Cost of one write and one read transaction through nova_lite's DB layer.

The floor under every API, conductor and placement request: an
``INSERT`` in its own writer transaction and a primary-key ``SELECT`` in a
reader transaction, through ``nova_lite.db.session`` (oslo.db enginefacade),
on a SQLite file (WAL) and on MariaDB when it answers.
"""

import os
import tempfile
import time
import uuid

import sqlalchemy as sa

from nova_lite import context as nl_context
from nova_lite.db import session
from tests.bench import stats

MYSQL_SERVER = os.environ.get('NOVA_LITE_BENCH_MYSQL',
                              'mysql+pymysql://root@127.0.0.1:3306')


def _measure(url, iterations):
    cm = session.create_context_manager(url)
    ctx = nl_context.get_admin_context()
    with cm.writer.using(ctx) as s:
        s.execute(sa.text('CREATE TABLE bench (id INTEGER PRIMARY KEY, '
                          'v VARCHAR(36))'))
    writes, reads = [], []
    for i in range(iterations):
        t0 = time.perf_counter()
        with cm.writer.using(ctx) as s:
            s.execute(sa.text('INSERT INTO bench VALUES (:i, :v)'),
                      {'i': i, 'v': str(uuid.uuid4())})
        writes.append(time.perf_counter() - t0)
    for i in range(iterations):
        t0 = time.perf_counter()
        with cm.reader.using(ctx) as s:
            s.execute(sa.text('SELECT v FROM bench WHERE id = :i'),
                      {'i': i}).scalar()
        reads.append(time.perf_counter() - t0)
    cm.dispose_pool()
    return stats.summarize(writes), stats.summarize(reads)


def _mysql_database():
    name = 'nova_lite_bench_%s' % uuid.uuid4().hex[:8]
    engine = sa.create_engine(MYSQL_SERVER + '/')
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql('CREATE DATABASE `%s`' % name)
    except sa.exc.OperationalError:
        return None, None

    def drop():
        with engine.connect() as conn:
            conn.exec_driver_sql('DROP DATABASE `%s`' % name)
    return '%s/%s' % (MYSQL_SERVER, name), drop


def run(args):
    iterations = 200 if args.quick else 1000
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        url = 'sqlite:///' + os.path.join(tmp, 'bench.sqlite')
        w, r = _measure(url, iterations)
        rows.append({'backend': 'sqlite-wal', 'write_p50_ms': w['p50_ms'],
                     'write_p99_ms': w['p99_ms'], 'read_p50_ms': r['p50_ms'],
                     'read_p99_ms': r['p99_ms']})
    url, drop = _mysql_database()
    if url:
        try:
            w, r = _measure(url, iterations)
        finally:
            drop()
        rows.append({'backend': 'mariadb', 'write_p50_ms': w['p50_ms'],
                     'write_p99_ms': w['p99_ms'], 'read_p50_ms': r['p50_ms'],
                     'read_p99_ms': r['p99_ms']})
    return {'iterations': iterations, 'rows': rows}
